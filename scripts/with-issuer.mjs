// `make dev AUTH=oauth` (and `make serve AUTH=oauth`): runs a command, `wrangler dev …`,
// with a local OAuth authorization server beside it for as long as it runs:
//
//   node scripts/with-issuer.mjs [--port N] -- COMMAND ARGS...
//
// The issuer is the tests' (tests/support/issuer.mjs) on 127.0.0.1:N (default 8788; 0: a
// free port): RFC 8414 metadata, a JWKS with one ES256 key made at start, an authorization
// endpoint that approves at once (there is no user to ask) and a token endpoint that
// verifies PKCE (S256) and rotates refresh tokens. Any client id will do. Its tokens name
// the subject `dev-user`, the `resource` asked for as audience, and the scope asked for
// (default `mcp:tools`).
//
// COMMAND gets, right after its first `dev` argument (so `--var`s after it still win, as
// `make dev VARS=…` does): --var OAUTH_ISSUER:<issuer> --var OAUTH_REQUIRED_SCOPES:mcp:tools
// --var ALLOW_ANONYMOUS:false. A SIGINT or SIGTERM is passed on to COMMAND; when COMMAND
// exits, the issuer stops and this script exits with COMMAND's status.
import { spawn } from 'node:child_process';
import { startIssuer } from '../tests/support/issuer.mjs';

const argv = process.argv.slice(2);
const split = argv.indexOf('--');
const options = split < 0 ? [] : argv.slice(0, split);
const [command, ...args] = split < 0 ? [] : argv.slice(split + 1);
const portAt = options.indexOf('--port');
const port = portAt < 0 ? 8788 : Number(options[portAt + 1]);
if (!command || !Number.isInteger(port) || port < 0 || port > 65535) {
  console.error('usage: node scripts/with-issuer.mjs [--port N] -- COMMAND ARGS...');
  process.exit(2);
}

let issuer;
try {
  issuer = await startIssuer({ port });
} catch (e) {
  console.error(`with-issuer: cannot listen on 127.0.0.1:${port} (${e.code ?? e.message}); choose another: ISSUER_PORT=…`);
  process.exit(1);
}
await issuer.addKey('dev-key', 'ES256');
issuer.publish('dev-key');
issuer.signIn.sub = 'dev-user';

const vars = [`OAUTH_ISSUER:${issuer.url}`, 'OAUTH_REQUIRED_SCOPES:mcp:tools', 'ALLOW_ANONYMOUS:false'].flatMap((v) => ['--var', v]);
const at = args.indexOf('dev');
args.splice(at < 0 ? args.length : at + 1, 0, ...vars);
console.log(`with-issuer: OAuth issuer ${issuer.url} (metadata ${issuer.url}/.well-known/oauth-authorization-server);`
  + ' callers need its token: sign pages in with any client id (docs/web-apps.md "Sign in locally")');

const child = spawn(command, args, { stdio: 'inherit' });
for (const signal of ['SIGINT', 'SIGTERM', 'SIGHUP']) {
  process.on(signal, () => { if (child.exitCode === null) child.kill(signal); });
}
child.on('error', async (e) => {
  console.error(`with-issuer: ${command}: ${e.message}`);
  await issuer.stop();
  process.exit(127);
});
child.on('exit', async (code, signal) => {
  await issuer.stop();
  process.exit(code ?? (signal ? 128 + ({ SIGINT: 2, SIGTERM: 15, SIGHUP: 1, SIGKILL: 9 }[signal] ?? 1) : 1));
});
