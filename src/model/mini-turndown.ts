/**
 * What turndown (as spec-cleanup.ts configures it) makes of plain HTML,
 * without loading turndown and its DOM (≈ 40 ms of a Stripe run for its five
 * descriptions with lists or nested tags; simple-html.ts converts the plain
 * paragraphs, most texts, faster still). The markup is read into a small
 * tree only when the HTML parser would build exactly that tree from it:
 * paragraphs, lists and line breaks holding text with `<code>`, `<strong>`/`<b>`,
 * `<em>`/`<i>`, `<a href>` and tags HTML does not know (Stripe's
 * `<currency>`), properly nested, no entities, comments or other attributes,
 * no paragraph or list opened inside a paragraph, no link inside a link.
 * Then turndown's own steps run on that tree, ported as they are in
 * turndown 7.2: `collapseWhitespace`, the rules used here, flanking
 * whitespace, `join` and `postProcess`. Anything else answers undefined, and
 * turndown converts it. A test compares the answers with turndown's on the
 * HTML texts of real specs.
 */

interface MiniNode {
  /** Upper case for elements, as a DOM's `nodeName`; "#text" for text. */
  name: string;
  /** Text nodes only. */
  data: string;
  href?: string;
  parent?: MiniNode;
  children: MiniNode[];
}

const TEXT = "#text";
const BLOCK = new Set(["P", "UL", "OL", "LI"]);
const INLINE = new Set(["CODE", "STRONG", "B", "EM", "I", "A"]);

/**
 * Every element name HTML (or the parser's legacy rules) knows: a tag outside
 * this list is an unknown element, which the parser nests like any other and
 * turndown renders as its content.
 */
const KNOWN_HTML = new Set(
  (
    "a abbr acronym address applet area article aside audio b base basefont bdi bdo bgsound big blink blockquote " +
    "body br button canvas caption center cite code col colgroup command data datalist dd del details dfn dialog " +
    "dir div dl dt em embed fieldset figcaption figure font footer form frame frameset h1 h2 h3 h4 h5 h6 head " +
    "header hgroup hr html i iframe image img input ins isindex kbd keygen label legend li link listing main map " +
    "mark marquee math menu menuitem meta meter multicol nav nextid nobr noembed noframes noscript object ol " +
    "optgroup option output p param picture plaintext pre progress q rb rp rt rtc ruby s samp script search " +
    "section select slot small source spacer span strike strong style sub summary sup svg table tbody td template " +
    "textarea tfoot th thead time title tr track tt u ul var video wbr xmp"
  ).split(" "),
);

const TOKEN = /<(\/?)([a-z][a-z0-9]*)(?: href="([^"<>&\s\0]*)")?( ?\/)?>|[^<]+/y;

/** Markdown for plain HTML, or undefined when turndown must decide. */
export function plainHtmlToMarkdown(html: string): string | undefined {
  const root = parse(html);
  if (!root) return undefined;
  collapseWhitespace(root);
  return postProcess(process(root)).trim();
}

/** The tree the HTML parser would build, or undefined when it might build another. */
function parse(html: string): MiniNode | undefined {
  const root = element("X-TURNDOWN");
  let current = root;
  TOKEN.lastIndex = 0;
  while (TOKEN.lastIndex < html.length) {
    const match = TOKEN.exec(html);
    if (!match) return undefined;
    const [token, close, tag, href, slash] = match;
    if (tag === undefined) {
      if (token.includes("&") || token.includes("\0")) return undefined;
      if (current.name === "UL" || current.name === "OL") {
        if (!/^[ \t\n\r\f]*$/.test(token)) return undefined;
      }
      append(current, { name: TEXT, data: token.replace(/\r\n?/g, "\n"), children: [] });
      continue;
    }
    const name = tag.toUpperCase();
    if (close) {
      if (href !== undefined || slash !== undefined || current.name !== name || current === root) return undefined;
      current = current.parent!;
      continue;
    }
    if (href !== undefined && name !== "A") return undefined;
    if (name === "BR") {
      if (current.name === "UL" || current.name === "OL") return undefined;
      append(current, element(name));
      continue;
    }
    if (slash !== undefined || !canOpen(name, current)) return undefined;
    const opened = element(name);
    if (href !== undefined) opened.href = href;
    append(current, opened);
    current = opened;
  }
  return current === root ? root : undefined;
}

/** Whether the parser nests `name` right under `current`, as written. */
function canOpen(name: string, current: MiniNode): boolean {
  if (name === "LI") return current.name === "UL" || current.name === "OL";
  if (current.name === "UL" || current.name === "OL") return false;
  if (BLOCK.has(name)) return (current.name === "X-TURNDOWN" || current.name === "LI") && !within(current, "P");
  if (name === "A" && within(current, "A")) return false;
  return INLINE.has(name) || !KNOWN_HTML.has(name.toLowerCase());
}

function within(node: MiniNode | undefined, name: string): boolean {
  for (; node; node = node.parent) if (node.name === name) return true;
  return false;
}

function element(name: string): MiniNode {
  return { name, data: "", children: [] };
}

function append(parent: MiniNode, child: MiniNode): void {
  child.parent = parent;
  parent.children.push(child);
}

function nextSibling(node: MiniNode): MiniNode | undefined {
  const siblings = node.parent!.children;
  return siblings[siblings.indexOf(node) + 1];
}

function previousSibling(node: MiniNode): MiniNode | undefined {
  const siblings = node.parent!.children;
  return siblings[siblings.indexOf(node) - 1];
}

function textContent(node: MiniNode): string {
  return node.name === TEXT ? node.data : node.children.map(textContent).join("");
}

/** Whether `textContent` has a character other than whitespace (`\s`), without building it. */
function hasVisibleText(node: MiniNode): boolean {
  return node.name === TEXT ? /\S/.test(node.data) : node.children.some(hasVisibleText);
}

function hasDescendant(node: MiniNode, name: string): boolean {
  return node.children.some((child) => child.name === name || hasDescendant(child, name));
}

/** turndown's `collapseWhitespace` (from collapse-whitespace), without `<pre>`. */
function collapseWhitespace(root: MiniNode): void {
  if (root.children.length === 0) return;
  let prevText: MiniNode | undefined;
  let keepLeadingWs = false;
  let prev: MiniNode | undefined;
  let node = next(prev, root);
  while (node !== root) {
    if (node.name === TEXT) {
      let text = node.data.replace(/[ \r\n\t]+/g, " ");
      if ((!prevText || / $/.test(prevText.data)) && !keepLeadingWs && text[0] === " ") text = text.slice(1);
      if (!text) {
        node = remove(node);
        continue;
      }
      node.data = text;
      prevText = node;
    } else if (BLOCK.has(node.name) || node.name === "BR") {
      if (prevText) prevText.data = prevText.data.replace(/ $/, "");
      prevText = undefined;
      keepLeadingWs = false;
    } else if (prevText) keepLeadingWs = false;
    const nextNode = next(prev, node);
    prev = node;
    node = nextNode;
  }
  if (prevText) {
    prevText.data = prevText.data.replace(/ $/, "");
    if (!prevText.data) remove(prevText);
  }
}

function remove(node: MiniNode): MiniNode {
  const after = nextSibling(node) ?? node.parent!;
  const siblings = node.parent!.children;
  siblings.splice(siblings.indexOf(node), 1);
  return after;
}

function next(prev: MiniNode | undefined, current: MiniNode): MiniNode {
  if (prev && prev.parent === current) return nextSibling(current) ?? current.parent!;
  return current.children[0] ?? nextSibling(current) ?? current.parent!;
}

/** turndown's `process`: each child's replacement, joined. */
function process(parent: MiniNode): string[] {
  const output: string[] = [];
  // Text as written: spec-cleanup.ts turns turndown's escaping off.
  for (const node of parent.children) join(output, node.name === TEXT ? node.data : replacementForNode(node));
  return output;
}

function replacementForNode(node: MiniNode): string {
  let content = process(node).join("");
  const { leading, trailing } = flankingWhitespace(node);
  if (leading || trailing) content = content.trim();
  return leading + (isBlank(node) ? (BLOCK.has(node.name) ? "\n\n" : "") : replace(content, node)) + trailing;
}

function isBlank(node: MiniNode): boolean {
  return (
    node.name !== "BR" &&
    node.name !== "A" &&
    !hasVisibleText(node) &&
    !hasDescendant(node, "BR") &&
    !hasDescendant(node, "A")
  );
}

/** The rules of turndown's that these elements meet, with spec-cleanup.ts's options. */
function replace(content: string, node: MiniNode): string {
  switch (node.name) {
    case "P":
      return "\n\n" + content + "\n\n";
    case "BR":
      return "  \n";
    case "UL":
    case "OL":
      return node.parent!.name === "LI" && lastElementChild(node.parent!) === node
        ? "\n" + content
        : "\n\n" + content + "\n\n";
    case "LI":
      return listItem(content, node);
    case "A":
      return node.href ? "[" + content + "](" + escapeLinkDestination(node.href) + ")" : content;
    case "EM":
    case "I":
      return content.trim() ? "*" + content + "*" : "";
    case "STRONG":
    case "B":
      return content.trim() ? "**" + content + "**" : "";
    case "CODE":
      return code(content);
    default:
      return content;
  }
}

function lastElementChild(node: MiniNode): MiniNode | undefined {
  const elements = node.children.filter((child) => child.name !== TEXT);
  return elements[elements.length - 1];
}

function listItem(content: string, node: MiniNode): string {
  const parent = node.parent!;
  let prefix = "-   ";
  if (parent.name === "OL") prefix = parent.children.filter((child) => child.name !== TEXT).indexOf(node) + 1 + ".  ";
  const isParagraph = /\n$/.test(content);
  content = trimNewlines(content) + (isParagraph ? "\n" : "");
  content = content.replace(/\n/gm, "\n" + " ".repeat(prefix.length));
  return prefix + content + (nextSibling(node) ? "\n" : "");
}

function code(content: string): string {
  if (!content) return "";
  content = content.replace(/\r?\n|\r/g, " ");
  const extraSpace = /^`|^ .*?[^ ].* $|`$/.test(content) ? " " : "";
  let delimiter = "`";
  const matches: string[] = content.match(/`+/gm) ?? [];
  while (matches.includes(delimiter)) delimiter = delimiter + "`";
  return delimiter + extraSpace + content + extraSpace + delimiter;
}

function escapeLinkDestination(destination: string): string {
  const escaped = destination.replace(/([<>()])/g, "\\$1");
  return escaped.includes(" ") ? "<" + escaped + ">" : escaped;
}

function flankingWhitespace(node: MiniNode): { leading: string; trailing: string } {
  if (BLOCK.has(node.name)) return { leading: "", trailing: "" };
  const edges = /^(([ \t\r\n]*)(\s*))(?:(?=\S)[\s\S]*\S)?((\s*?)([ \t\r\n]*))$/.exec(textContent(node))!;
  const leading = edges[2] && isFlankedByWhitespace(previousSibling(node), / $/) ? edges[3]! : edges[1]!;
  const trailing = edges[6] && isFlankedByWhitespace(nextSibling(node), /^ /) ? edges[5]! : edges[4]!;
  return { leading, trailing };
}

function isFlankedByWhitespace(sibling: MiniNode | undefined, edge: RegExp): boolean {
  if (!sibling) return false;
  if (sibling.name === TEXT) return edge.test(sibling.data);
  return !BLOCK.has(sibling.name) && edge.test(textContent(sibling));
}

/** turndown's `join`: at most two newlines between replacements, all trailing whitespace in the last part. */
function join(output: string[], replacement: string): void {
  const tail = output.pop() ?? "";
  const s1 = trimTrailingNewlines(tail);
  const s2 = replacement.replace(/^\n*/, "");
  const separator = "\n\n".substring(0, Math.max(tail.length - s1.length, replacement.length - s2.length));
  if (s1) output.push(s1);
  if (separator) output.push(separator);
  if (s2) output.push(s2);
}

function postProcess(output: string[]): string {
  join(output, "");
  return output
    .join("")
    .replace(/^[\t\r\n]+/, "")
    .replace(/[\t\r\n\s]+$/, "");
}

function trimTrailingNewlines(text: string): string {
  let end = text.length;
  while (end > 0 && text[end - 1] === "\n") end--;
  return text.substring(0, end);
}

function trimNewlines(text: string): string {
  return trimTrailingNewlines(text.replace(/^\n*/, ""));
}
