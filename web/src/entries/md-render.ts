/**
 * Markdown to React with one processor for the page's life. react-markdown builds and freezes a
 * unified processor on every render (its plugins attach again and micromark combines its syntax
 * extensions again), and a streaming message re-renders its last block for each update. Here the
 * processor is built once; the steps after parsing are react-markdown 10's own: raw HTML shown as
 * text, URLs through its safe transform, hast to JSX.
 */
import type { Root } from 'hast';
import { toJsxRuntime } from 'hast-util-to-jsx-runtime';
import { urlAttributes } from 'html-url-attributes';
import type { ReactElement } from 'react';
import { Fragment, jsx, jsxs } from 'react/jsx-runtime';
import { defaultUrlTransform, type Components } from 'react-markdown';
import remarkGfm from 'remark-gfm';
import remarkParse from 'remark-parse';
import remarkRehype from 'remark-rehype';
import { unified } from 'unified';
import { visit } from 'unist-util-visit';

// As react-markdown: raw HTML reaches the tree, then becomes plain text below (never rendered).
const processor = unified().use(remarkParse).use(remarkGfm).use(remarkRehype, { allowDangerousHtml: true }).freeze();

export function renderMarkdown(text: string, components: Components): ReactElement {
  const tree = processor.runSync(processor.parse(text)) as Root;
  visit(tree, (node, index, parent) => {
    if (node.type === 'raw' && parent && typeof index === 'number') {
      parent.children[index] = { type: 'text', value: node.value };
      return index;
    }
    if (node.type === 'element') {
      for (const key in urlAttributes) {
        if (!Object.hasOwn(urlAttributes, key) || !Object.hasOwn(node.properties, key)) continue;
        const test = urlAttributes[key];
        if (test === null || test?.includes(node.tagName))
          node.properties[key] = defaultUrlTransform(String(node.properties[key] || ''));
      }
    }
    return undefined;
  });
  return toJsxRuntime(tree, {
    Fragment,
    components: components as Parameters<typeof toJsxRuntime>[1]['components'],
    ignoreInvalidStyle: true,
    jsx,
    jsxs,
    passKeys: true,
    passNode: true,
  });
}
