export { parseMentions } from './parse-mentions';
export { MAX_PATTERN_LENGTH, MENTION_PREFIXES } from './mention-reader';
export { formatRange } from './line-range';
export { quoteLiteral, quoteRegex } from './tokens';
export type {
  ContextMention,
  GrepMention,
  LineRange,
  MentionKind,
  MentionSyntaxError,
  MentionSyntaxErrorKind,
  ParsedMention,
  ParseResult,
  PathMention,
  ReferencesMention,
  SearchMention,
  Span,
  SymbolMention,
  UrlMention,
} from './types';
