// What names a credential, one notion for every name whsvc judges: a header's (--debug, listen's records), an
// environment variable's (--jq's $ENV), a flag's and a form field's (the words of a command line a hint echoes).

/**
 * Whether a name (an environment variable's, a flag's, a form field's, a header's) says its value is a credential:
 * SECRET, TOKEN, PASS (PASSWORD, PASSWD, PASSPHRASE, DB_PASS), CREDENTIAL, KEY, AUTH (AUTHORIZATION, NPM's _AUTH),
 * COOKIE, JWT, PRIVATE, SESSION anywhere in it; PWD (MYSQL_PWD) and PAT (GITHUB_PAT) as words of it, but not the
 * shell's PWD, the working directory.
 */
export function namesCredential(name: string): boolean {
  if (name === 'PWD') return false;
  return /SECRET|TOKEN|PASS|CREDENTIAL|KEY|AUTH|COOKIE|JWT|PRIVATE|SESSION|(?:^|[^A-Z0-9])(?:PWD|PAT)(?:$|[^A-Z0-9])/i.test(name);
}
