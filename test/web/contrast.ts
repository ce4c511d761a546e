/**
 * Colour contrast of what a page draws, read from computed styles (WCAG 2 relative luminance).
 * Computed colours come as `rgb(…)`, `rgba(…)` or, for `color-mix()`, `color(srgb r g b / a)`.
 */
import type { Locator } from 'playwright-core';

export type Rgba = [number, number, number, number];

export function parseColor(css: string): Rgba {
  const rgb = /^rgba?\(\s*([\d.]+)[,\s]+([\d.]+)[,\s]+([\d.]+)(?:\s*[,/]\s*([\d.]+))?\s*\)$/.exec(css);
  if (rgb) return [Number(rgb[1]), Number(rgb[2]), Number(rgb[3]), rgb[4] === undefined ? 1 : Number(rgb[4])];
  const srgb = /^color\(srgb\s+([\d.e-]+)\s+([\d.e-]+)\s+([\d.e-]+)(?:\s*\/\s*([\d.]+))?\s*\)$/.exec(css);
  if (srgb)
    return [
      Number(srgb[1]) * 255,
      Number(srgb[2]) * 255,
      Number(srgb[3]) * 255,
      srgb[4] === undefined ? 1 : Number(srgb[4]),
    ];
  throw new Error(`unreadable colour: ${css}`);
}

function luminance([r, g, b]: Rgba): number {
  const ch = (v: number): number => {
    const c = v / 255;
    return c <= 0.03928 ? c / 12.92 : ((c + 0.055) / 1.055) ** 2.4;
  };
  return 0.2126 * ch(r) + 0.7152 * ch(g) + 0.0722 * ch(b);
}

export function contrast(a: Rgba, b: Rgba): number {
  const [x, y] = [luminance(a), luminance(b)].sort((p, q) => q - p) as [number, number];
  return (x + 0.05) / (y + 0.05);
}

/** The element's text colour against its own (opaque) background, as drawn now (hover included). */
export async function ownContrast(el: Locator): Promise<{ color: string; background: string; ratio: number }> {
  const { color, background } = await el.evaluate((e) => {
    // (The test's tsconfig has no DOM types.)
    const s = (
      globalThis as unknown as { getComputedStyle(x: unknown): { color: string; backgroundColor: string } }
    ).getComputedStyle(e);
    return { color: s.color, background: s.backgroundColor };
  });
  const bg = parseColor(background);
  if (bg[3] < 1) throw new Error(`background is not opaque: ${background}`);
  return { color, background, ratio: contrast(parseColor(color), bg) };
}
