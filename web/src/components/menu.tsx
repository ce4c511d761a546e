import { useEffect, useId, useRef, useState, type ReactNode } from 'react';

/**
 * A menu button and its menu (the WAI-ARIA menu button pattern): the button says it has a popup
 * and whether it is open; the items are menuitems; ↑/↓/Home/End move between them, Escape shuts
 * the menu and gives the focus back to the button (and does not also stop the turn), Tab or a
 * press elsewhere shuts it. Picking an item shuts it unless the item keeps it open (a submenu).
 */
export function MenuButton({ label, icon, className, children }: { label: string; icon: ReactNode; className?: string; children: ReactNode }) {
  const [open, setOpen] = useState(false);
  const root = useRef<HTMLDivElement>(null);
  const button = useRef<HTMLButtonElement>(null);
  const menu = useRef<HTMLDivElement>(null);
  const id = useId();
  const close = (focus = true): void => {
    setOpen(false);
    if (focus) button.current?.focus();
  };
  useEffect(() => {
    if (!open) return;
    // The first item takes the focus, so the arrows work at once.
    items(menu.current)[0]?.focus();
    const onKey = (e: KeyboardEvent): void => {
      if (e.key !== 'Escape') return;
      e.stopPropagation();
      e.preventDefault();
      setOpen(false);
      button.current?.focus();
    };
    const onDown = (e: PointerEvent): void => {
      const t = e.target as Node | null;
      if (t && !root.current?.contains(t)) setOpen(false);
    };
    window.addEventListener('keydown', onKey, true);
    document.addEventListener('pointerdown', onDown, true);
    return () => {
      window.removeEventListener('keydown', onKey, true);
      document.removeEventListener('pointerdown', onDown, true);
    };
  }, [open]);
  return (
    <div className={`menu-wrap ${className ?? ''}`} ref={root}>
      <button
        type="button"
        className="icon-btn menu-btn"
        aria-label={label}
        title={label}
        aria-haspopup="menu"
        aria-expanded={open}
        aria-controls={open ? id : undefined}
        ref={button}
        onClick={() => setOpen((o) => !o)}
        onKeyDown={(e) => {
          if (e.key === 'ArrowDown' && !open) {
            e.preventDefault();
            setOpen(true);
          }
        }}
      >
        {icon}
      </button>
      {open && (
        <div
          className="menu actions-menu"
          role="menu"
          id={id}
          aria-label={label}
          ref={menu}
          onKeyDown={(e) => {
            const list = items(menu.current);
            const at = list.indexOf(document.activeElement as HTMLElement);
            const to = (i: number): void => {
              e.preventDefault();
              list[(i + list.length) % list.length]?.focus();
            };
            if (e.key === 'ArrowDown') to(at + 1);
            else if (e.key === 'ArrowUp') to(at - 1);
            else if (e.key === 'Home') to(0);
            else if (e.key === 'End') to(list.length - 1);
            else if (e.key === 'Tab') close(false);
          }}
          onClick={(e) => {
            // An item did its job: the menu shuts (one that opens a submenu says so with aria-haspopup).
            const item = (e.target as HTMLElement).closest('[role=menuitem]');
            if (item && !item.hasAttribute('aria-haspopup')) close(false);
          }}
        >
          {children}
        </div>
      )}
    </div>
  );
}

function items(menu: HTMLElement | null): HTMLElement[] {
  return menu ? [...menu.querySelectorAll<HTMLElement>('[role=menuitem]:not([aria-disabled=true])')] : [];
}
