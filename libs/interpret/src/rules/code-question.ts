import { isCodeLike } from './lexicon';
import type { Sentence } from './sentence';

/**
 * Open questions about what this repository's code does — "where is rate limiting handled?",
 * "which code handles login retries?", "how does the app authenticate users?" — name a behaviour,
 * not a string: no search finds "rate limiting" in code that says `RateLimiter` and `429`. They go
 * to task-aware retrieval (find_relevant_code), which ranks the code for the question as a whole.
 * A question that names something to search for (an identifier, a quoted string, a number, a
 * file) keeps its search; a question about the world ("how does TLS work?") names no workspace.
 */

/**
 * What code does, by the verb's stem: the where-forms take it as a participle after "is/are"
 * ("where is rate limiting handled") or as a verb after "do/does" ("where does the queue process
 * jobs"), so a noun of the same spelling ("where is the retry count read") does not count.
 */
const VERBS: readonly [stem: string, participle: string][] = [
  ['handle', 'handled'], ['implement', 'implemented'], ['do', 'done'], ['happen', 'happened'], ['process', 'processed'], ['manage', 'managed'],
  ['compute', 'computed'], ['calculate', 'calculated'], ['validate', 'validated'], ['check', 'checked'], ['enforce', 'enforced'], ['parse', 'parsed'],
  ['decide', 'decided'], ['determine', 'determined'], ['perform', 'performed'], ['deal with', 'dealt with'], ['take care of', 'taken care of'],
  ['create', 'created'], ['generate', 'generated'], ['send', 'sent'], ['render', 'rendered'], ['format', 'formatted'], ['cancel', 'cancell?ed'],
  ['refresh', 'refreshed'], ['hash', 'hashed'], ['rate[\\s-]limit', 'rate[\\s-]limited'], ['authenticate', 'authenticated'], ['authori[sz]e', 'authori[sz]ed'],
  ['retry', 'retried'], ['cache', 'cached'], ['store', 'stored'], ['save', 'saved'], ['load', 'loaded'], ['seed', 'seeded'], ['tokeni[sz]e', 'tokeni[sz]ed'],
  ['convert', 'converted'], ['schedule', 'scheduled'], ['dispatch', 'dispatched'], ['route', 'routed'], ['raise', 'raised'], ['report', 'reported'],
  ['control', 'controll?ed'], ['talk to', 'talked to'], ['verify', 'verified'], ['clean up', 'cleaned up'], ['expire', 'expired'], ['compress', 'compressed'],
];
const PARTICIPLE = `(?:${VERBS.map(([, participle]) => participle).join('|')}|(?:get|gets|got)\\s+(?:${VERBS.map(([, participle]) => participle).join('|')}))`;
/** As a finite verb "do" is the auxiliary of every question ("what does X mean"): only its participle ("where is it done") counts. */
const FINITE = VERBS.filter(([stem]) => stem !== 'do');
const BASE = `(?:${FINITE.map(([stem]) => stem).join('|')})`;
/** Third person, for "which code handles", "what takes care of": the stem with -s or -es (and "is responsible"). */
const THIRD_PERSON = `(?:${FINITE.map(([stem]) => stem.replace(/^\S+/, thirdPerson)).join('|')}|(?:is|are)\\s+responsible|responsible)`;

function thirdPerson(verb: string): string {
  if (/(?:s|sh|ch|x)$/.test(verb)) return `${verb}es`;
  return /[^aeiou]y$/.test(verb) ? `${verb.slice(0, -1)}ies` : `${verb}s`;
}

/** The where- and what-forms of an open question about code, each read on the whole (cleaned) query. */
const FORMS: readonly RegExp[] = [
  // "where is rate limiting handled?", "where in the codebase are orders created?", "where do incoming requests get rate limited"
  new RegExp(`^where(?:'s|\\s+(?:is|are|was|were)|\\s+in\\s+the\\s+(?:code(?:\\s*base)?|app|project|repo)\\s+(?:is|are))\\b.*\\b${PARTICIPLE}\\b`, 'i'),
  // "where does the queue process incoming jobs?", "where do we enforce request timeouts"
  new RegExp(`^where(?:\\s+in\\s+the\\s+(?:code(?:\\s*base)?|app|project|repo))?\\s+(?:do|does|did)\\b.*\\b(?:${BASE}|get\\s+${PARTICIPLE})\\b`, 'i'),
  // "what handles incoming webhook events?", "who is responsible for refunds"
  new RegExp(`^(?:what|who)\\s+(?:${THIRD_PERSON})\\b`, 'i'),
];

/** Forms that say outright that code is asked about ("which code", "the logic for"): no reading of them is about the world. */
const CODE_NAMED_FORMS: readonly RegExp[] = [
  // "which code handles login retries?", "which part of the code deals with sessions", "which files implement the health check"
  new RegExp(
    `^(?:which|what)\\s+(?:(?:part|parts|piece|pieces|area|areas)\\s+of\\s+the\\s+(?:code(?:\\s*base)?|app|application|project|system|repo)|code|function|functions|method|methods|class|classes|module|modules|component|components|files?|services?|handlers?|logic|package|library)\\s+(?:that\\s+|which\\s+)?(?:\\w+ly\\s+)?(?:${THIRD_PERSON}|${BASE})\\b`,
    'i',
  ),
  // "find the code that sends the welcome email", "where's the logic for order totals", "point me to the code handling X"
  /^(?:find|show|locate|point\s+(?:me\s+)?to|give\s+me|where(?:'s|\s+is|\s+are)|what(?:'s|\s+is)|which\s+is)\s+(?:me\s+)?(?:the\s+|all\s+the\s+)?(?:code|logic|implementation|place|part\s+of\s+the\s+code)\s+(?:that|which|for|behind|responsible\s+for|handling|dealing\s+with|where)\b/i,
];

/** "how does the app …", "how do we …", "explain how … in our code": a how-question is about this code only when it says so. */
const HOW_FORM = /^(?:how\s+(?:does|do|is|are|did|can|should)\b|(?:explain|describe)\s+how\b)/i;
const ABOUT_THIS_CODE =
  /\b(?:we|our|us|here|th(?:is|e)\s+(?:code(?:\s*base)?|app|application|project|repo|repository|service|server|backend|frontend|api|engine|system|client|queue|worker|ui|cli|library|package))\b/i;

/**
 * Whether the (cleaned) query is an open question about what code does, naming nothing a search
 * would find: `named` when it says the code is meant ("which code …", "how does our app …"),
 * `open` when only its form does ("where is rate limiting handled?") — a question the caller may
 * still read as one about the world.
 */
export function codeQuestion(text: string, sentence: Sentence): 'named' | 'open' | undefined {
  if (namesSomethingToSearch(sentence)) return undefined;
  if (CODE_NAMED_FORMS.some((form) => form.test(text)) || (HOW_FORM.test(text) && ABOUT_THIS_CODE.test(text))) return 'named';
  return FORMS.some((form) => form.test(text)) ? 'open' : undefined;
}

/**
 * An identifier, a quoted string, a number ("404 errors"), a file or a path: a search finds it
 * where it is written.
 */
function namesSomethingToSearch(sentence: Sentence): boolean {
  return sentence.tokens.some((token) => {
    const word = token.text.replace(/[?!.,;:]+$/, '');
    if (token.quoted || /^\d+$/.test(word) || /[/\\]/.test(word) || /\.[a-z]{1,5}$/i.test(word)) return true;
    // Hyphenated English ("rate-limited") and short acronyms ("the invoice PDF", "API keys") describe; they name nothing.
    if (/^[a-z]+(?:-[a-z]+)+$/.test(word) || /^[A-Z]{2,4}s?$/.test(word)) return false;
    return isCodeLike({ ...token, text: word });
  });
}
