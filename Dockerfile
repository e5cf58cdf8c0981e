# One image for every Quarry process: `quarry gateway`, `quarry worker`, `quarry migrate`.
# Built in a stage with a compiler: `npm run build` compiles the code index's native addons
# (libs/code-index/native) with node-gyp; the image that runs carries the result, not the tools.
FROM node:20-bookworm-slim AS build
RUN apt-get update && apt-get install -y --no-install-recommends python3 make g++ && rm -rf /var/lib/apt/lists/*
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --ignore-scripts

FROM node:20-bookworm-slim
WORKDIR /app
COPY --from=build /app /app
ENV NODE_ENV=production
ENTRYPOINT ["node", "bin/quarry.js"]
CMD ["gateway"]
