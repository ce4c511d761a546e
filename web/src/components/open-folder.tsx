import { useState } from 'react';
import { describeError } from '../api/server.js';
import type { AppStore } from '../state/app-store.js';

/** Opens a workspace by path (the server checks it is an existing directory). */
export function OpenFolder({ store }: { store: AppStore }) {
  const [open, setOpen] = useState(false);
  const [path, setPath] = useState('');
  const [err, setErr] = useState<string>();
  if (!open)
    return (
      <button type="button" className="link-btn" onClick={() => setOpen(true)}>
        + Open folder
      </button>
    );
  return (
    <form
      className="open-folder"
      onSubmit={(e) => {
        e.preventDefault();
        setErr(undefined);
        store.client.api
          .openWorkspace({ body: { path } })
          .then(async () => {
            await store.refresh();
            setOpen(false);
            setPath('');
          })
          .catch((x: unknown) => setErr(describeError(x).message));
      }}
    >
      <input autoFocus aria-label="Folder path" placeholder="/path/to/project" value={path} onChange={(e) => setPath(e.target.value)} />
      <button type="submit">Open</button>
      <button type="button" className="link-btn" onClick={() => setOpen(false)}>
        Cancel
      </button>
      {err && <p role="alert" className="error small">{err}</p>}
    </form>
  );
}
