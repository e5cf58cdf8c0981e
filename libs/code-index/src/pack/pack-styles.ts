import { QuarryError, closestMatch } from '@quarry/contracts';

export const PACK_STYLES = ['xml', 'markdown', 'plain'] as const;
export type PackStyle = (typeof PACK_STYLES)[number];

export interface PackHeading {
  title: string;
  encoding: string;
  compressed: boolean;
}

export interface PackedFileHeading {
  path: string;
  language?: string;
  tokens: number;
}

export interface PackSummary {
  files: number;
  tokens: number;
  encoding: string;
  redactions: number;
  compressed: number;
  omitted: { path: string; tokens: number }[];
}

/** How one style lays the document out. Every method returns text to write, in order. */
export interface PackLayout {
  /** The text as this style can carry it (XML cannot carry most control characters). */
  carry(text: string): string;
  begin(heading: PackHeading): string;
  treeBegin(): string;
  treeLine(line: string): string;
  treeEnd(): string;
  fileBegin(file: PackedFileHeading, text: string): string;
  fileText(text: string): string;
  fileEnd(file: PackedFileHeading, text: string): string;
  end(summary: PackSummary): string;
}

export function packLayout(style: string): PackLayout {
  switch (style) {
    case 'xml':
      return XML;
    case 'markdown':
      return MARKDOWN;
    case 'plain':
      return PLAIN;
    default: {
      const close = closestMatch(style, PACK_STYLES);
      throw new QuarryError('style_unknown', `There is no pack style "${String(style).slice(0, 40)}"; the styles are ${PACK_STYLES.join(', ')}.`, {
        suggestion: close === undefined ? '--style xml (the default), markdown or plain.' : `Did you mean --style ${close}?`,
      });
    }
  }
}

const escapeAttribute = (value: string) => value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;').replace(/"/g, '&quot;');
/** CDATA carries text verbatim except its own terminator, which is split across two sections. */
const cdata = (text: string) => `<![CDATA[${text.replaceAll(']]>', ']]]]><![CDATA[>')}]]>`;
/** XML 1.0 forbids these even in CDATA: each becomes its Unicode control picture (form feed → ␌). */
const XML_FORBIDDEN = /[\u0000-\u0008\u000b\u000c\u000e-\u001f\ufffe\uffff]/g;
const HAS_XML_FORBIDDEN = new RegExp(XML_FORBIDDEN.source); // no `g`: `test` must not keep state
const controlPicture = (char: string) => (char.charCodeAt(0) < 0x20 ? String.fromCharCode(0x2400 + char.charCodeAt(0)) : '\ufffd');

/**
 * XML that parses: one `<repository>` root, file contents in CDATA (so code reads as written,
 * with no `&lt;`), each file's path, language and tokens as attributes, and the totals at the end.
 */
const XML: PackLayout = {
  carry: (text) => (HAS_XML_FORBIDDEN.test(text) ? text.replace(XML_FORBIDDEN, controlPicture) : text),
  begin: ({ title, encoding, compressed }) =>
    `<?xml version="1.0" encoding="UTF-8"?>\n<repository name="${escapeAttribute(title)}" encoding="${encoding}"${compressed ? ' compressed="true"' : ''}>\n` +
    '<file_summary>\nThis document is a packed representation of the repository: its directory structure, then each file\'s ' +
    `content in a file element with its path and its token count (${encoding}). Credentials found in the files are replaced by ` +
    `[REDACTED kind] markers.${compressed ? ' Function bodies are replaced by a placeholder; signatures, types and comments are kept.' : ''} ` +
    'The totals are in the summary element at the end.\n</file_summary>\n',
  treeBegin: () => '<directory_structure><![CDATA[\n',
  treeLine: (line) => line.replaceAll(']]>', ']]]]><![CDATA[>'),
  treeEnd: () => ']]></directory_structure>\n<files>\n',
  fileBegin: ({ path, language, tokens }) => `<file path="${escapeAttribute(path)}"${language === undefined ? '' : ` language="${escapeAttribute(language)}"`} tokens="${tokens}">`,
  fileText: cdata,
  fileEnd: () => '</file>\n',
  end: (summary) =>
    '</files>\n' +
    (summary.omitted.length === 0 ? '' : `<omitted_files>\n${summary.omitted.map((o) => `<file path="${escapeAttribute(o.path)}" tokens="${o.tokens}"/>\n`).join('')}</omitted_files>\n`) +
    `<summary files="${summary.files}" tokens="${summary.tokens}" encoding="${summary.encoding}" redactions="${summary.redactions}" compressed="${summary.compressed}" omitted="${summary.omitted.length}"/>\n</repository>\n`,
};

/** A fence longer than any run of backticks in the text, so the text cannot close it. */
function fenceFor(text: string): string {
  let longest = 0;
  for (const run of text.match(/`+/g) ?? []) longest = Math.max(longest, run.length);
  return '`'.repeat(Math.max(3, longest + 1));
}

const MARKDOWN_LANGUAGES: Record<string, string> = { 'C++': 'cpp', 'C#': 'csharp', 'Objective-C': 'objectivec', Shell: 'bash' };
const fenceLanguage = (language: string | undefined) => (language === undefined || language === 'Other' ? '' : (MARKDOWN_LANGUAGES[language] ?? language.toLowerCase().replace(/\s+/g, '')));

const MARKDOWN: PackLayout = {
  carry: (text) => text,
  begin: ({ title, encoding, compressed }) =>
    `# ${title}\n\nThis document is a packed representation of the repository: its directory structure, then each file's content ` +
    `with its token count (${encoding}). Credentials are replaced by [REDACTED kind] markers.` +
    `${compressed ? ' Function bodies are replaced by a placeholder.' : ''}\n\n`,
  treeBegin: () => '## Directory structure\n\n```\n',
  treeLine: (line) => line,
  treeEnd: () => '```\n\n## Files\n\n',
  fileBegin: ({ path, language, tokens }, text) => `### ${path} (${tokens} tokens)\n\n${fenceFor(text)}${fenceLanguage(language)}\n`,
  fileText: (text) => (text.endsWith('\n') || text.length === 0 ? text : `${text}\n`),
  fileEnd: (_file, text) => `${fenceFor(text)}\n\n`,
  end: (summary) =>
    (summary.omitted.length === 0 ? '' : `## Omitted (over the token budget)\n\n${summary.omitted.map((o) => `- ${o.path} (${o.tokens} tokens)\n`).join('')}\n`) +
    `## Summary\n\n${summary.files} files, ${summary.tokens} tokens (${summary.encoding}), ${summary.redactions} redactions, ${summary.compressed} files compressed, ${summary.omitted.length} omitted.\n`,
};

const RULE = `${'='.repeat(64)}\n`;

const PLAIN: PackLayout = {
  carry: (text) => text,
  begin: ({ title, encoding, compressed }) =>
    `${RULE}${title}\n${RULE}This document is a packed representation of the repository: its directory structure, then each file's ` +
    `content with its token count (${encoding}). Credentials are replaced by [REDACTED kind] markers.` +
    `${compressed ? ' Function bodies are replaced by a placeholder.' : ''}\n\n`,
  treeBegin: () => `${RULE}Directory structure\n${RULE}`,
  treeLine: (line) => line,
  treeEnd: () => '\n',
  fileBegin: ({ path, tokens }) => `${RULE}File: ${path} (${tokens} tokens)\n${RULE}`,
  fileText: (text) => (text.endsWith('\n') || text.length === 0 ? text : `${text}\n`),
  fileEnd: () => '\n',
  end: (summary) =>
    (summary.omitted.length === 0 ? '' : `${RULE}Omitted (over the token budget)\n${RULE}${summary.omitted.map((o) => `${o.path} (${o.tokens} tokens)\n`).join('')}\n`) +
    `${RULE}Summary: ${summary.files} files, ${summary.tokens} tokens (${summary.encoding}), ${summary.redactions} redactions, ${summary.compressed} files compressed, ${summary.omitted.length} omitted.\n`,
};
