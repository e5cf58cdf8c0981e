import { hasDirectoryNamed, hasFileNamed, hasFileStem, type WorkspaceView } from '../workspace-view';
import { FUNCTION_WORDS, isFileName, isGlob, isSlashedPath } from './lexicon';
import type { Sentence, Token } from './sentence';

/**
 * Questions about the world rather than the workspace — "what is a monad?", "what does HTTP 503
 * mean?", "who invented C?" — need no tool: the spec's fall back to normal conversation. A question
 * is general when it has a definitional or explanatory form and nothing in it points at the
 * workspace: no path or file of it, no directory named as a place, no identifier, no "this" or
 * "our", no "the project" or "the tests".
 */

/** The forms, each capturing its subject. "what's in src" and "what is under docs" are listings, not definitions. */
const GENERAL_FORMS: readonly RegExp[] = [
  // Not "what does and contain": an auxiliary after "what" asks what something does, not what it is.
  /^(?:what\s+(?:is|are|was|were)|whats|what's|what)\s+(?!(?:is|are|was|were|does|do|did|can|could|should|would|will|has|have|had|in|inside|under|on|at|left|up|new|wrong|going|happening)\b)(.+)$/i,
  /^what\s+do\s+(?:you|people|they)\s+mean\s+by\s+(.+)$/i,
  /^what\s+(?:does|do|did)\s+(.+?)\s+(?:mean|stand\s+for|refer\s+to|abbreviate)(?:\s+(?:in|for|when|with)\s+.+)?$/i,
  /^(?:give\s+me\s+)?(?:the\s+|a\s+)?(?:definition|meaning|explanation)\s+of\s+(.+)$/i,
  // Not "how is X used / implemented": in a workspace that asks about its code.
  /^how\s+(?:is|are)\s+(.+?)\s+(?:different|better|worse|faster|slower|related|pronounced)\b/i,
  /^(?:explain|define|describe)\s+(?:to\s+me\s+)?(.+)$/i,
  /^tell\s+me\s+(?:about|what)\s+(.+)$/i,
  /^who\s+(?:invented|created|designed|wrote|made|founded|developed|coined|discovered)\s+(.+)$/i,
  /^(?:when|what\s+year)\s+(?:was|were|did)\s+(.+?)\s+(?:first\s+)?(?:released|invented|created|introduced|founded|published|born|come\s+out|came\s+out)$/i,
  /^how\s+many\s+(\w+\s+(?:are\s+)?(?:there\s+)?in\s+(?:a|an|one)\s+\w+)$/i,
];

/** Words that put the question in this workspace, the editor or the conversation about them. */
const DEIXIS = /\b(?:this|these|that|those|here|there|current|our|ours|my|mine|we|us|your|it|its|they|them|their)\b/i;
/** "the project", "the python tests", "the tech stack": the definite article before a workspace noun. */
const THE_WORKSPACE =
  /\bthe\s+(?:[\w-]+\s+)?(?:stack|project|repo|repository|codebase|code\s*base|code|workspace|app|application|service|server|folder|directory|dir|files?|framework|build|tests?|test\s+suite|specs?|dependencies|deps|config|configuration|readme|entry\s+point|main\s+file|license|package|crate|module|version|schema|migrations?|endpoint|routes?|handler|logger)\b/i;
/** "what kind of app is web": asks to classify something, which the stack detection answers. */
const CLASSIFYING = /\b(?:kind|sort|type|flavou?r|category)s?\s+of\b/i;
/** "what's the total size of all markdown": sizes, counts and dates are measured in the workspace. */
const MEASURE = /\b(?:size|sizes|bytes|line\s+count|number\s+of|total|biggest|largest|smallest|newest|oldest|longest|last\s+(?:modified|changed|updated)|mtime)\b/i;
/**
 * "what is used for testing", "what's exported from it": a participle of what code does makes the
 * question about this code — unless the subject is a kind of thing ("what is a Bloom filter used for").
 */
const CODE_PARTICIPLE =
  /\b(?:used|defined|declared|exported|imported|called|configured|set|stored|installed|required|exposed|built|written|based|powered|listening|running|deployed|tested|loaded|handled|thrown|returned|missing|broken|failing|changed|modified|calling|using|importing|referencing|depends?|depending)\b/i;
/** "what mentions kubernetes", "what imports lodash": a question about which code does something. */
const CODE_VERB_FIRST =
  /^(?:calls|uses|imports|references|refers|mentions|matches|has|have|reads|writes|throws|raises|exports|depends|relies|contains|includes|defines|declares|implements|extends|inherits|wraps|invokes|instantiates|handles|logs|sets|returns|requires|loads|creates|emits|sends|publishes|subscribes|listens|triggers|runs|starts|spawns|breaks|still)\b/i;
/** "what validates emails": any other verb right after a bare "what" too, except the world's ("what causes a deadlock"). */
const VERB_AFTER_WHAT = /^what\s+(?!(?:does|was|has|is|whats)\b)\w{3,}s\s+(?!(?:are|is|do|does|exist|there|of|in)\b)\w/i;
const GENERAL_VERB_FIRST = /^(?:causes|makes|happens|means|determines|affects|influences|explains|separates|distinguishes)\b/i;
/** "what files mention X", "what tests are there": the things a workspace holds, counted or listed. */
const WORKSPACE_PLURALS =
  /\b(?:files|folders|directories|dirs|scripts|lines|tests|specs|modules|functions|classes|methods|comments|todos|fixmes|imports|usages|occurrences|matches|references|callers|routes|endpoints|handlers|components|models|services)\b/i;
/**
 * "what's the default timeout", "what triggers the release workflow": a definite noun phrase with
 * nothing general about it is this workspace's; "the halting problem", "the CAP theorem", "the
 * capital of France" and "the acronym REST" are not.
 */
const DEFINITE_PHRASE = /\bthe\s+([^,;?]+?)(?=\s+(?:of|between|in|on|for|to|from|with|is|are|was|were|does|do|did|work|works|mean|means)\b|[,;?]|$)(\s+(?:of|between)\b)?/gi;
const CONCEPT_NOUN =
  /\b(?:problem|theorem|principle|law|pattern|algorithm|paradox|rule|model|protocol|theory|hypothesis|effect|fallacy|dilemma|notation|standard|specification|language|acronym|abbreviation|term|word|phrase|concept|idea|difference)s?\b/i;

/** Around a directory's name, the words that make it a place. */
const PLACE_BEFORE = /^(?:the|this|our|my|in|under|inside|within|from|of|at|for|about|across|throughout|into|below|beneath)$/i;
const PLACE_AFTER = /^(?:folder|directory|dir|project|app|package|crate|module|service|workspace)$/i;
/** File stems that are also English ("index", "main", "test"): never read as a file of the workspace here. */
const ENGLISH_STEMS = /^(?:the|and|for|with|what|how|does|mean|work|index|main|test|app|lib|src|readme|license)$/i;

/** The subject of a general question, or undefined when the query is not one or points at the workspace. */
export function generalQuestion(text: string, sentence: Sentence, view?: WorkspaceView): string | undefined {
  const subject = GENERAL_FORMS.map((form) => form.exec(text)?.[1]).find((found) => found !== undefined);
  if (subject === undefined || DEIXIS.test(text) || THE_WORKSPACE.test(text) || CLASSIFYING.test(text) || MEASURE.test(text)) return undefined;
  if (CODE_PARTICIPLE.test(subject) && !/^(?:a|an)\s/i.test(subject)) return undefined;
  if (CODE_VERB_FIRST.test(subject) || WORKSPACE_PLURALS.test(subject) || workspaceDefinite(subject)) return undefined;
  if (VERB_AFTER_WHAT.test(text) && !GENERAL_VERB_FIRST.test(subject)) return undefined;
  // "what is api", "explain scripts", "what is web built with": the subject starts with a directory of the workspace.
  const first = /^(?:(?:a|an|the)\s+)?([\w@.-]+)\/?(?:\s|$)/i.exec(subject.replace(/[?!.]+$/, ''))?.[1];
  if (view && first !== undefined && hasDirectoryNamed(view, first)) return undefined;
  const tokens = sentence.tokens;
  return tokens.some((token) => pointsAtWorkspace(token, tokens, view)) ? undefined : subject;
}

function workspaceDefinite(subject: string): boolean {
  for (const match of subject.matchAll(DEFINITE_PHRASE)) if (!match[2] && !CONCEPT_NOUN.test(match[1])) return true;
  return false;
}

function pointsAtWorkspace(token: Token, tokens: readonly Token[], view?: WorkspaceView): boolean {
  const word = token.text.replace(/[?!.,;:]+$/, '');
  const before = tokens[token.index - 1]?.lower ?? '';
  const after = tokens[token.index + 1]?.lower ?? '';
  if (/^https?:\/\//i.test(word) || isGlob(word)) return true;
  if (isSlashedPath(word) || view?.kind(word) === 'file') return true;
  // "what is a Dockerfile", "what's a .gitignore": a kind of file, asked about in general; "Node.js" is a technology.
  const technology = /^[A-Z][a-z]+\.js$/.test(word);
  if ((isFileName(word) || (view !== undefined && hasFileNamed(view, word))) && !technology && !/^(?:a|an)$/.test(before)) return true;
  // An identifier of code: camelCase, snake_case, a dotted name, a call of a name (not "O(n log n)"), a decorator.
  if (/[a-z0-9][A-Z]/.test(word) || /^[A-Za-z]+_\w/.test(word) || /^[A-Za-z_$][\w$]+\(/.test(word) || /^@\w/.test(word)) return true;
  if (/^[a-z_$][\w$]*\.[a-z_$][\w$]*$/i.test(word) && !technology) return true;
  // The name of one of its files without the extension ("explain logger"), unless a kind of thing ("a logger").
  if (view && /^[\w-]{3,}$/.test(word) && hasFileStem(view, word) && !/^(?:a|an)$/.test(before) && !ENGLISH_STEMS.test(word)) return true;
  // A directory named as a place: "the api", "in docs", "the web folder".
  const directory = view !== undefined && /^[\w@.-]+$/.test(word) && hasDirectoryNamed(view, word);
  // A directory named like a function word ("in", "for") is one only when called so: "the for folder".
  if (FUNCTION_WORDS.has(token.lower)) return directory && (PLACE_AFTER.test(after) || (before === 'the' && after !== '') || (PLACE_BEFORE.test(before) && after === ''));
  return directory && (PLACE_BEFORE.test(before) || PLACE_AFTER.test(after));
}
