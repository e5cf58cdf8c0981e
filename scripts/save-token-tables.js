#!/usr/bin/env node
// Saves the token counter's tables beside its compiled module (dist only), so that no process or
// shard thread builds them from gpt-tokenizer's rank list at start-up (~0.3 s of CPU each).
// Run by `npm run build`; without the files the counter builds its tables as before.
const fs = require('node:fs');
const { saveVocabulary, savedVocabularyFile } = require('../dist/libs/code-index/src/tokens/bpe-counter.js');

for (const encoding of ['o200k_base', 'cl100k_base']) {
  const file = savedVocabularyFile(encoding);
  // Written aside and renamed: a process starting meanwhile reads the old file whole or none.
  fs.writeFileSync(`${file}.tmp`, saveVocabulary(encoding));
  fs.renameSync(`${file}.tmp`, file);
}
