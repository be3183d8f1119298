/**
 * Memory categories (docs/memory-digest-calendar.md): each fact in `Cairn/Memory.md` carries one
 * nested tag, `#memory/<slug>`, written at the end of the fact, before `(added …)`:
 *
 *     - Great pizza at Mario's on Main St #memory/food (added 2026-11-27) ^m-7k2p
 *
 * A tag is plain Markdown that Obsidian's tag pane counts and a user can change by hand; the
 * tag in the file always wins. A fact without one (written by hand, or waiting for the LLM) is
 * placed by {@link classifyMemoryByRules} when it is read, and nothing is written for it.
 */

export const MEMORY_CATEGORIES = [
  'websites',
  'food',
  'movies',
  'books',
  'ideas',
  'places',
  'products',
  'people',
  'learnings',
  'quotes',
  'uncategorized',
] as const;
export type MemoryCategory = (typeof MEMORY_CATEGORIES)[number];

/** How each category is shown (the names). */
export const MEMORY_CATEGORY_LABELS: Record<MemoryCategory, string> = {
  websites: 'Websites',
  food: 'Food',
  movies: 'Movies',
  books: 'Books',
  ideas: 'Ideas',
  places: 'Places',
  products: 'Products',
  people: 'People',
  learnings: 'Learnings',
  quotes: 'Quotes',
  uncategorized: 'Uncategorized',
};

export const MEMORY_TAG_PREFIX = '#memory/';

export function isMemoryCategory(value: string): value is MemoryCategory {
  return (MEMORY_CATEGORIES as readonly string[]).includes(value);
}

/** `Food`, `food`, `#memory/food` → `food`; anything else undefined. */
export function parseMemoryCategory(value: string): MemoryCategory | undefined {
  const slug = value
    .trim()
    .replace(/^#?memory\//i, '')
    .toLowerCase();
  return isMemoryCategory(slug) ? slug : undefined;
}

/** The words a person says for each category ("my movie memories", "what do you know about books"). */
const CATEGORY_WORDS: Record<string, MemoryCategory> = {
  website: 'websites',
  websites: 'websites',
  link: 'websites',
  links: 'websites',
  site: 'websites',
  sites: 'websites',
  food: 'food',
  restaurant: 'food',
  restaurants: 'food',
  movie: 'movies',
  movies: 'movies',
  film: 'movies',
  films: 'movies',
  book: 'books',
  books: 'books',
  idea: 'ideas',
  ideas: 'ideas',
  place: 'places',
  places: 'places',
  product: 'products',
  products: 'products',
  person: 'people',
  people: 'people',
  learning: 'learnings',
  learnings: 'learnings',
  quote: 'quotes',
  quotes: 'quotes',
  uncategorized: 'uncategorized',
  uncategorised: 'uncategorized',
};

/** "movies", "Movie", "links", "#memory/food" → the category they name; other words undefined. */
export function categoryFromWords(words: string): MemoryCategory | undefined {
  const word = words
    .trim()
    .replace(/^(?:my|the|your|all(?: my)?)\s+/i, '')
    .replace(/^#?memory\//i, '')
    .toLowerCase();
  return CATEGORY_WORDS[word];
}

/** A trailing `#memory/<word>` tag (the last one wins; an unknown word is kept as text). */
const TRAILING_TAG = /\s+#memory\/([A-Za-z-]+)\s*$/;

/**
 * Splits a fact's text into its words and its category tag. An unknown `#memory/…` word stays
 * in the text (the user sees it as written) and the fact counts as untagged.
 */
export function splitCategoryTag(text: string): { text: string; tagged: MemoryCategory | null } {
  const match = TRAILING_TAG.exec(text);
  if (!match) return { text, tagged: null };
  const category = parseMemoryCategory(match[1]!);
  if (category === undefined) return { text, tagged: null };
  return { text: text.slice(0, match.index).trimEnd(), tagged: category };
}

export function categoryTag(category: MemoryCategory): string {
  return `${MEMORY_TAG_PREFIX}${category}`;
}

interface CategoryRule {
  category: MemoryCategory;
  test: RegExp;
}

/**
 * Ordered: the first rule that matches decides. The cheap certain signals come first (a URL,
 * "TIL", a quotation), then verbs of intent ("watch", "read", "visit", "buy"), then nouns.
 */
const RULES: readonly CategoryRule[] = [
  { category: 'websites', test: /\bhttps?:\/\/\S+|\bwww\.[a-z0-9-]+\.[a-z]{2,}/i },
  {
    category: 'learnings',
    test: /^(?:til\b|today i learned\b|learned\b|lesson\b|note to self\b)|\b(?:i learned|turns out|learnt that|learned that|the trick is|tip:)/i,
  },
  {
    category: 'quotes',
    test: /^["“«][^"”»]{8,}["”»](?:\s*[-—–~]\s*\S.*)?$|^[^"“]{0,40}\bsaid\s*[:,]?\s*["“][^"”]{8,}["”]|\bquote\b/i,
  },
  {
    category: 'movies',
    test: /\b(?:watch(?:ed|ing)?|movies?|films?|cinema|netflix|series|season \d+|documentary|trailer|imdb|director)\b/i,
  },
  {
    category: 'books',
    test: /\b(?:read(?:ing)?|books?|novels?|author|kindle|audiobook|paperback|chapter|isbn)\b/i,
  },
  {
    category: 'food',
    test: /\b(?:restaurants?|pizza|pasta|sushi|ramen|noodles|dumplings?|steak|bbq|tapas|burgers?|tacos?|curry|recipes?|cook(?:ed|ing)?|bak(?:e|ed|ery)|cafe|café|coffee|tea|brunch|breakfast|lunch|dinner|eat(?:s|ing)?|ate|food|dish|delicious|tasty|menu|wine|beer|cocktail|dessert|cake|chocolate|cheese|bistro|diner|vegan|vegetarian|allergic to (?:nuts|peanuts|gluten|shellfish|dairy))\b/i,
  },
  {
    category: 'places',
    test: /\b(?:visit(?:ed|ing)?|trip|travel|vacation|holiday|museum|park|beach|hike|hiking|trail|hotel|airbnb|city|village|island|lake|mountain|castle|gallery|neighbo(?:u)?rhood|go to|been to|road trip)\b/i,
  },
  {
    category: 'products',
    test: /\b(?:buy|bought|order(?:ed)?|purchase|price|costs?|deal|discount|gadget|headphones|laptop|phone case|keyboard|monitor|camera|shoes|jacket|gift idea|wishlist|amazon|product|brand|model [A-Z0-9]+|\$\d+|€\d+|£\d+)\b/i,
  },
  {
    category: 'people',
    test: /\b(?:birthday|anniversary|wife|husband|partner|sister|brother|mom|mum|dad|mother|father|son|daughter|aunt|uncle|cousin|friend|colleague|boss|neighbou?r|dentist|doctor|likes|loves|hates|allergic|phone number|email is|kids?)\b/i,
  },
  // "Sarah's …": a capitalised name's possessive (case matters, so a rule of its own).
  { category: 'people', test: /\b[A-Z][a-z]+['’]s\b/ },
  {
    category: 'ideas',
    test: /\b(?:idea|ideas|what if|could build|should build|app that|side project|startup|brainstorm|maybe (?:make|build|write|start)|concept|prototype|someday)\b/i,
  },
];

/** The rule-based category of a fact (without its tag); `uncategorized` when no rule fits. */
export function classifyMemoryByRules(text: string): MemoryCategory {
  const trimmed = text.trim();
  for (const rule of RULES) if (rule.test.test(trimmed)) return rule.category;
  return 'uncategorized';
}
