import { compile } from 'html-to-text';
import type { FormatCallback, HtmlToTextOptions } from 'html-to-text';
import { decodeBody, detectCharset } from './charset';
import type { ContentType, DocumentFormat } from './content-types';

/**
 * Turns a fetched body into the text a model reads: HTML becomes readable text (page chrome
 * dropped, headings marked, lists and link targets kept), JSON is pretty-printed, XML, plain text
 * and Markdown stay as they are. The result is what Quarry caches and returns.
 */

export interface ExtractedText {
  text: string;
  title?: string;
  /** The encoding the body was decoded with. */
  charset: string;
}

interface Metadata {
  baseUrl: string;
}

const MAX_TITLE_CHARS = 500;

/** `# Heading` (Markdown style), so the outline survives and is not shouted in capitals. */
const heading =
  (level: number): FormatCallback =>
  (elem, walk, builder) => {
    builder.openBlock({ leadingLineBreaks: level <= 2 ? 2 : 1 });
    builder.addLiteral(`${'#'.repeat(level)} `);
    walk(elem.children, builder);
    builder.closeBlock({ trailingLineBreaks: 1 });
  };

/** Links are resolved against the page's final URL; `javascript:` and the like are dropped. */
function resolveHref(href: string, metadata: Metadata | undefined): string {
  try {
    const url = new URL(href, metadata?.baseUrl);
    return url.protocol === 'http:' || url.protocol === 'https:' || url.protocol === 'mailto:' ? url.href : '';
  } catch {
    return '';
  }
}

/**
 * `header`/`footer` of the page are chrome; inside an `article` or `main` they are the article's
 * own (its title, its byline) and are kept. (html-to-text selectors have no combinators.)
 */
const pageChrome: FormatCallback = (elem, walk, builder) => {
  for (let node = (elem as { parent?: { name?: string; parent?: unknown } }).parent; node; node = node.parent as typeof node) {
    if (node.name === 'article' || node.name === 'main') {
      builder.openBlock({ leadingLineBreaks: 1 });
      walk(elem.children, builder);
      builder.closeBlock({ trailingLineBreaks: 1 });
      return;
    }
  }
};

// Page chrome and things that are not text.
const NOISE = ['script', 'style', 'noscript', 'template', 'svg', 'canvas', 'nav', 'aside', 'form', 'button', 'select', 'textarea', 'input', 'iframe', 'object', 'embed', 'img', 'picture', 'video', 'audio', 'dialog', '[role="navigation"]', '[hidden]'];

const HTML_OPTIONS: HtmlToTextOptions = {
  wordwrap: false,
  formatters: { pageChrome, h1: heading(1), h2: heading(2), h3: heading(3), h4: heading(4), h5: heading(5), h6: heading(6) },
  selectors: [
    ...NOISE.map((selector) => ({ selector, format: 'skip' })),
    { selector: 'header', format: 'pageChrome' },
    { selector: 'footer', format: 'pageChrome' },
    ...[1, 2, 3, 4, 5, 6].map((level) => ({ selector: `h${level}`, format: `h${level}` })),
    {
      selector: 'a',
      options: {
        linkBrackets: ['[', ']'] as [string, string],
        hideLinkHrefIfSameAsText: true,
        pathRewrite: (href: string, metadata?: Metadata) => resolveHref(href, metadata),
      },
    },
    { selector: 'ul', options: { itemPrefix: '- ' } },
    { selector: 'table', format: 'dataTable', options: { uppercaseHeaderCells: false, maxColumnWidth: 80 } },
  ],
};

const htmlToText = compile(HTML_OPTIONS) as (html: string, metadata?: Metadata) => string;
const decodeFragment = compile({ wordwrap: false });

export function extractText(body: Buffer, contentType: ContentType, format: DocumentFormat, options: { baseUrl: string; truncated?: boolean }): ExtractedText {
  const charset = detectCharset(body, contentType.charset, format);
  const source = decodeBody(body, charset, options.truncated ?? false);
  switch (format) {
    case 'html': {
      const title = extractTitle(source);
      const text = tidy(htmlToText(source, { baseUrl: options.baseUrl }));
      return title === undefined ? { text, charset } : { text, title, charset };
    }
    case 'json':
      return { text: prettyJson(source), charset };
    default:
      return { text: source, charset };
  }
}

/** The document's `<title>`, entities decoded and whitespace collapsed. */
export function extractTitle(html: string): string | undefined {
  const match = /<title\b[^>]*>([\s\S]*?)<\/title\s*>/i.exec(html);
  if (!match) return undefined;
  const title = decodeFragment(match[1]).replace(/\s+/g, ' ').trim();
  if (title === '') return undefined;
  return title.length > MAX_TITLE_CHARS ? `${title.slice(0, MAX_TITLE_CHARS)}…` : title;
}

/** Pretty-printed when it parses; a body cut at the size cap does not, and is returned as is. */
function prettyJson(source: string): string {
  try {
    return JSON.stringify(JSON.parse(source), null, 2);
  } catch {
    return source;
  }
}

/** Trailing spaces and runs of blank lines are noise for a reader and cost tokens. */
function tidy(text: string): string {
  return text
    .replace(/[ \t]+$/gm, '')
    .replace(/\n{3,}/g, '\n\n')
    .trim();
}
