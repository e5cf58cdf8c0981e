// See node-environment.js: the one re2 instance this jest process loaded.
module.exports = globalThis.__quarrySharedRe2;
