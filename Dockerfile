# One image for every Quarry process: `quarry gateway`, `quarry worker`, `quarry migrate`.
FROM node:20-bookworm-slim
WORKDIR /app
COPY package.json package-lock.json ./
COPY scripts ./scripts
COPY prisma ./prisma
COPY prisma.config.ts ./
RUN npm ci --no-audit --no-fund
COPY . .
RUN npm run build && npm prune --omit=dev --no-audit --no-fund --ignore-scripts
ENV NODE_ENV=production
ENTRYPOINT ["node", "bin/quarry.js"]
CMD ["gateway"]
