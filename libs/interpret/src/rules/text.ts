/**
 * Query clean-up before the patterns run: politeness and filler go, common typos of the words
 * the patterns key on are fixed. Argument-looking tokens (paths, globs, quoted text) are never
 * touched, so "serach.ts" stays a file name.
 */

const FILLER_PREFIXES: readonly RegExp[] = [
  /^(?:hey|hi|hello|yo|ok|okay|so|um+|uh+|well|please|pls|plz|kindly|quarry)\b[,!.:]?\s*/i,
  /^(?:could|can|would|will)\s+(?:you|u)\s+(?:please\s+|kindly\s+|maybe\s+)?/i,
  /^(?:i(?:\s+(?:want|need|would\s+like|wanna)|\s*'d\s+like)(?:\s+you)?\s+to|i\s+wanna|help\s+me|go\s+ahead\s+and|just|quickly)\s+/i,
  /^(?:know|find\s+out|learn|understand)\s+(?=(?:what|which|where|how|who|whether|if)\b)/i,
  /^(?:tell\s+me|do\s+you\s+know)\s+(?=(?:what|which|where|how|who)\b)/i,
];
/** Sentence-final punctuation goes; a symbol's own ("#!", "^#$") stays. */
const FILLER_SUFFIXES: readonly RegExp[] = [/(?<=[\w"'`”)\]\s]|^)[\s?.!]+$/, /[\s,]*\b(?:please|pls|plz|thanks|thank\s+you|thx|for\s+me|real\s+quick)$/i];

const TYPOS: Readonly<Record<string, string>> = {
  lsit: 'list', lits: 'list', lst: 'list', lis: 'list', lsat: 'list', liist: 'list',
  serach: 'search', seach: 'search', searh: 'search', serch: 'search', saerch: 'search', searhc: 'search', sarch: 'search', seearch: 'search',
  fnd: 'find', fidn: 'find', fimd: 'find', fnid: 'find', finde: 'find',
  grpe: 'grep', gerp: 'grep', gep: 'grep', grap: 'grep',
  shwo: 'show', hsow: 'show', sohw: 'show', shw: 'show', sow: 'show',
  opne: 'open', oepn: 'open', raed: 'read', reda: 'read', rad: 'read',
  dispaly: 'display', dipslay: 'display', pirnt: 'print', prnt: 'print',
  fecth: 'fetch', fetc: 'fetch', feth: 'fetch', ftech: 'fetch',
  locat: 'locate', loacte: 'locate',
  flies: 'files', fiels: 'files', filse: 'files', fles: 'files', fils: 'files', filez: 'files',
  fiel: 'file', flie: 'file', fiile: 'file',
  dirctory: 'directory', direcotry: 'directory', directroy: 'directory', diretory: 'directory', dierctory: 'directory', directoy: 'directory',
  fodler: 'folder', foler: 'folder', floder: 'folder', foldr: 'folder',
  whre: 'where', wher: 'where', wehre: 'where', whta: 'what', waht: 'what', wat: 'what', whihc: 'which', wich: 'which',
  defiend: 'defined', definded: 'defined', defned: 'defined', decalred: 'declared',
  contens: 'contents', contnets: 'contents', conents: 'contents', contnet: 'content',
  frist: 'first', fisrt: 'first', lnes: 'lines', lins: 'lines', liens: 'lines', lien: 'line',
  stak: 'stack', stakc: 'stack', langauge: 'language', languge: 'language', lanuage: 'language', langage: 'language',
  framwork: 'framework', framewrok: 'framework', frmaework: 'framework',
  projet: 'project', porject: 'project', prject: 'project', projcet: 'project',
  evrything: 'everything', everyting: 'everything', recursivly: 'recursively', recursivley: 'recursively', recusively: 'recursively',
  strucutre: 'structure', structre: 'structure', stucture: 'structure',
  usgaes: 'usages', ocurrences: 'occurrences', occurences: 'occurrences', occurrances: 'occurrences', mentoin: 'mention',
};

/** Replaces known typos, keeping every other token as the user wrote it. */
function fixTypos(text: string): string {
  return text.replace(/[A-Za-z]+/g, (word, offset: number) => {
    const fixed = TYPOS[word.toLowerCase()];
    if (!fixed) return word;
    // Part of a path or a file name ("lst.ts", "src/fnd"): an argument, not a typo.
    const before = text[offset - 1] ?? ' ';
    const after = text[offset + word.length] ?? ' ';
    return /[./\\_\-*]/.test(before) || /[./\\_\-*]/.test(after) ? word : fixed;
  });
}

/** The query with filler removed and keyword typos fixed; argument text keeps its case. */
export function cleanQuery(query: string): string {
  let text = query.replace(/\s+/g, ' ').trim();
  for (let changed = true; changed; ) {
    changed = false;
    for (const pattern of FILLER_PREFIXES) {
      const next = text.replace(pattern, '');
      if (next !== text) {
        text = next;
        changed = true;
      }
    }
    for (const pattern of FILLER_SUFFIXES) {
      const next = text.replace(pattern, '');
      if (next !== text && next.length > 0) {
        text = next;
        changed = true;
      }
    }
  }
  return fixTypos(text);
}
