/** Tool kind icons as inline SVG (emoji fonts are not everywhere; these draw the same on every system). */
const PATHS: Record<string, string> = {
  read: 'M2 3h5a2 2 0 0 1 2 2v8a1.5 1.5 0 0 0-1.5-1.5H2zM14 3H9.5A1.5 1.5 0 0 0 8 4.5V13a1.5 1.5 0 0 1 1.5-1.5H14z',
  edit: 'M10.5 2.5l3 3L6 13H3v-3zM9 4l3 3',
  delete: 'M3 4h10M6 4V2.5h4V4M4.5 4l.7 9.5h5.6l.7-9.5',
  move: 'M2 8h12M10 4l4 4-4 4M6 4L2 8l4 4',
  search: 'M7 2.5a4.5 4.5 0 1 1 0 9 4.5 4.5 0 0 1 0-9zM10.3 10.3L14 14',
  execute: 'M2.5 3.5l5 4.5-5 4.5M8.5 12.5h5',
  think: 'M8 2.5a4 4 0 0 1 2.5 7.1V11h-5V9.6A4 4 0 0 1 8 2.5zM6 13.5h4',
  fetch: 'M8 2a6 6 0 1 1 0 12A6 6 0 0 1 8 2zM2 8h12M8 2c2 2 2 10 0 12M8 2c-2 2-2 10 0 12',
  switch_mode: 'M3 5h9l-2-2M13 11H4l2 2',
  other: 'M8 5.5a2.5 2.5 0 1 1 0 5 2.5 2.5 0 0 1 0-5zM8 1.5v2M8 12.5v2M1.5 8h2M12.5 8h2M3.4 3.4l1.4 1.4M11.2 11.2l1.4 1.4M3.4 12.6l1.4-1.4M11.2 4.8l1.4-1.4',
};

export function KindIcon({ kind }: { kind: string | undefined }) {
  const d = PATHS[kind ?? 'other'] ?? PATHS.other!;
  return (
    <svg className="kind-icon" width="16" height="16" viewBox="0 0 16 16" fill="none" stroke="currentColor" strokeWidth="1.4" strokeLinecap="round" strokeLinejoin="round" aria-hidden="true">
      <path d={d} />
    </svg>
  );
}
