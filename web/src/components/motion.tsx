import { useEffect, useRef } from 'react';

/**
 * The running indicators (spinners, the running dot) move in a few discrete steps a second from
 * one shared timer, not as CSS animations: an infinite CSS animation keeps Chromium drawing 60
 * frames a second for as long as a turn runs — ~700 ms of CPU per 10 s of a turn that waits on an
 * approval (bench web.load), against ~60 ms when only the steps below draw a frame. With
 * prefers-reduced-motion nothing moves.
 */
const SPIN_STEPS = 8;
const PULSE = [1, 0.8, 0.55, 0.35, 0.55, 0.8];
const TICK_MS = 200;

const spinners = new Set<HTMLElement>();
const pulses = new Set<HTMLElement>();
let timer: ReturnType<typeof setInterval> | undefined;
let n = 0;

function tick(): void {
  n++;
  const turn = `rotate(${(n % SPIN_STEPS) * (360 / SPIN_STEPS)}deg)`;
  for (const el of spinners) el.style.transform = turn;
  const level = String(PULSE[n % PULSE.length]);
  for (const el of pulses) el.style.opacity = level;
}

const reduced = () => typeof matchMedia === 'function' && matchMedia('(prefers-reduced-motion: reduce)').matches;

function useMoving(kind: 'spin' | 'pulse', on: boolean) {
  const ref = useRef<HTMLSpanElement>(null);
  useEffect(() => {
    const el = ref.current;
    if (!el || !on || reduced()) return;
    const set = kind === 'spin' ? spinners : pulses;
    set.add(el);
    timer ??= setInterval(tick, TICK_MS);
    return () => {
      set.delete(el);
      el.style.transform = '';
      el.style.opacity = '';
      if (spinners.size === 0 && pulses.size === 0 && timer !== undefined) {
        clearInterval(timer);
        timer = undefined;
      }
    };
  }, [kind, on]);
  return ref;
}

export function Spinner() {
  return <span ref={useMoving('spin', true)} className="spinner" aria-hidden="true" />;
}

/** A ref for an element that breathes while `on` (the running status dot). */
export const usePulse = (on: boolean) => useMoving('pulse', on);
