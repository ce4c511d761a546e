/**
 * JSON with comments and trailing commas (Zed's settings.json, our config.json), read with
 * `jsonc-parser` (the parser VS Code uses). A syntax error names its line and column.
 */
import { parse, printParseErrorCode, type ParseError } from 'jsonc-parser';

/** Parses JSONC; throws a SyntaxError naming the first problem and its line (and column). */
export function parseJsonc(text: string): unknown {
  const errors: ParseError[] = [];
  const value: unknown = parse(text.replace(/^\uFEFF/, ''), errors, {
    allowTrailingComma: true,
    disallowComments: false,
    allowEmptyContent: false,
  });
  const first = errors[0];
  if (!first) return value;
  const before = text.replace(/^\uFEFF/, '').slice(0, first.offset);
  const line = before.split('\n').length;
  const column = first.offset - before.lastIndexOf('\n');
  throw new SyntaxError(`${describe(printParseErrorCode(first.error))} (line ${line}, column ${column})`);
}

/** "PropertyNameExpected" → "property name expected". */
function describe(code: string): string {
  return code.replace(/([a-z])([A-Z])/g, '$1 $2').toLowerCase();
}
