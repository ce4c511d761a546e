/** What a person sees without a working token: what happened and exactly what to do. */
export function TokenPage({ kind, message }: { kind: 'no-token' | 'bad-token' | 'down'; message?: string | undefined }) {
  const title =
    kind === 'bad-token' ? 'This link’s token is not valid' : kind === 'no-token' ? 'Open Talaria from the link it printed' : 'Talaria’s server does not answer';
  return (
    <main className="token-page" aria-labelledby="token-title">
      <div className="token-card">
        <div className="brand-mark" aria-hidden="true">◆</div>
        <h1 id="token-title">{title}</h1>
        {kind === 'bad-token' && (
          <p>The server refused the token in this link{message ? ` (“${message}”)` : ''}. It may have been revoked, or the server was restarted with a new one.</p>
        )}
        {kind === 'no-token' && <p>This page needs the access token that <code>talaria serve</code> prints with its address.</p>}
        {kind === 'down' && <p>{message}</p>}
        <h2>What to do</h2>
        <ol>
          <li>
            In a terminal, run <code>talaria serve</code> (or <code>npm start</code> in a checkout).
          </li>
          <li>
            Open the line it prints, <code>http://127.0.0.1:PORT/#token=…</code>, as a whole.
          </li>
          <li>
            To make a new link for this server: <code>talaria serve tokens add</code> (add <code>--observer</code> for a read-only one).
          </li>
        </ol>
      </div>
    </main>
  );
}
