/** An XML element as `[name, content]`: text, nested elements, or undefined (left out). */
export type XmlElement = readonly [name: string, content: string | number | boolean | readonly XmlElement[] | undefined];

/** The namespace S3 puts on its response documents. */
const S3_NAMESPACE = "http://s3.amazonaws.com/doc/2006-03-01/";

/**
 * An S3 response document: the XML declaration, then `root` and its children, in S3's namespace unless
 * told another (`namespace`: a URI) or none (`false`).
 */
export function xmlDocument(root: string, children: readonly XmlElement[], options: { namespace?: boolean | string } = {}): string {
  const namespace = options.namespace === false ? undefined : typeof options.namespace === "string" ? options.namespace : S3_NAMESPACE;
  const attributes = namespace === undefined ? "" : ` xmlns="${namespace}"`;
  return `<?xml version="1.0" encoding="UTF-8"?>\n<${root}${attributes}>${children.map(render).join("")}</${root}>`;
}

function render([name, content]: XmlElement): string {
  if (content === undefined) return "";
  const inner = Array.isArray(content) ? (content as readonly XmlElement[]).map(render).join("") : escapeXml(String(content));
  return `<${name}>${inner}</${name}>`;
}

/** Escapes text for element content. */
export function escapeXml(text: string): string {
  return text.replace(/[&<>"']/g, (char) => `&${{ "&": "amp", "<": "lt", ">": "gt", '"': "quot", "'": "apos" }[char]};`);
}

/**
 * The contents of every `<name>` element in a request document (CompleteMultipartUpload, Delete): the
 * small, flat documents clients send need no general XML parser. Namespace prefixes are ignored.
 */
export function xmlElements(xml: string, name: string): string[] {
  const pattern = new RegExp(`<(?:[A-Za-z][\\w.-]*:)?${name}(?:\\s[^>]*)?>([\\s\\S]*?)</(?:[A-Za-z][\\w.-]*:)?${name}\\s*>`, "g");
  return [...xml.matchAll(pattern)].map((match) => match[1]!);
}

/** The text of the first `<name>` element, entities decoded (whitespace kept: keys may hold it); undefined when absent. */
export function xmlText(xml: string, name: string): string | undefined {
  const [inner] = xmlElements(xml, name);
  return inner === undefined ? undefined : unescapeXml(inner);
}

function unescapeXml(text: string): string {
  return text
    .replace(/<!\[CDATA\[([\s\S]*?)\]\]>/g, (_, data: string) => data)
    .replace(/&(#x[0-9a-fA-F]+|#\d+|amp|lt|gt|quot|apos);/g, (_, entity: string) => {
      if (entity.startsWith("#x")) return String.fromCodePoint(parseInt(entity.slice(2), 16));
      if (entity.startsWith("#")) return String.fromCodePoint(parseInt(entity.slice(1), 10));
      return { amp: "&", lt: "<", gt: ">", quot: '"', apos: "'" }[entity]!;
    });
}
