"""Which variables an eval file may set for the agent (``env`` in ``eval-config.json``).

An eval config comes with the package, so a pull request or a cloned repository writes it. Its ``env`` reaches the
agent's environment, and before the sandbox existed it also reached the host-side launcher (bubblewrap, prlimit,
setpriv, the cgroup shell): ``LD_PRELOAD`` of a fixture ran the repository's code on the host, and a base URL
pointed the model bridge, key and all, at the attacker (issue 42). The launcher now gets a fixed environment of its
own (:data:`evalens.runner.bwrap.LAUNCHER_ENV`), and this module refuses, by name, every variable that some loader,
shell, language runtime, TLS stack, proxy, model client or credential lookup reads: an eval's own settings
(``PDF_STRICT=1``) have no business there, and a name that steers one of those is an attack or a mistake either way.
The refusal is an error naming the variable, in the editor (the model validator) and at run time.
"""

from __future__ import annotations

import re

NAME = re.compile(r"[A-Za-z_][A-Za-z0-9_]*\Z")

# Exact names (compared upper-cased) that a shell, the loader, a runtime or the sandbox's own plumbing reads.
_EXACT = frozenset(
    {
        # shells: start-up files, hooks run before every prompt or command, parsing
        "BASH_ENV",
        "ENV",
        "PROMPT_COMMAND",
        "PS0",
        "PS1",
        "PS2",
        "PS4",
        "SHELLOPTS",
        "BASHOPTS",
        "IFS",
        "CDPATH",
        "GLOBIGNORE",
        "BASH_XTRACEFD",
        "ZDOTDIR",
        "HISTFILE",
        "INPUTRC",
        "SHELL",
        # what the sandbox sets itself: where things are and who runs
        "PATH",
        "HOME",
        "TMPDIR",
        "USER",
        "LOGNAME",
        "PWD",
        "OLDPWD",
        # glibc and the loader beyond LD_*
        "GCONV_PATH",
        "GETCONF_DIR",
        "HOSTALIASES",
        "LOCALDOMAIN",
        "RES_OPTIONS",
        "NLSPATH",
        "LOCPATH",
        "GLIBC_TUNABLES",
        "TZDIR",
        # language runtimes that load code named by a variable
        "NODE_OPTIONS",
        "NODE_PATH",
        "NODE_EXTRA_CA_CERTS",
        "NODE_TLS_REJECT_UNAUTHORIZED",
        "NODE_REPL_EXTERNAL_MODULE",
        "NPM_CONFIG_PREFIX",
        "BUN_OPTIONS",
        "PERL5OPT",
        "PERL5LIB",
        "PERLLIB",
        "RUBYOPT",
        "RUBYLIB",
        "JAVA_TOOL_OPTIONS",
        "_JAVA_OPTIONS",
        "JDK_JAVA_OPTIONS",
        "CLASSPATH",
        "LUA_INIT",
        "EDITOR",
        "VISUAL",
        "PAGER",
        "LESSOPEN",
        "LESSCLOSE",
        "LESSKEY",
        "LESSKEYIN",
        "BROWSER",
        # TLS trust: a CA of the attacker's reads the bridge's traffic
        "SSL_CERT_FILE",
        "SSL_CERT_DIR",
        "REQUESTS_CA_BUNDLE",
        "CURL_CA_BUNDLE",
        "OPENSSL_CONF",
        "OPENSSL_ENGINES",
        # credentials read from a file or a helper
        "GOOGLE_APPLICATION_CREDENTIALS",
        "NETRC",
        "SSH_AUTH_SOCK",
        "GNUPGHOME",
        "KUBECONFIG",
        "DOCKER_HOST",
    }
)

# Prefixes (upper-cased): the loader, bash's exported functions, runtimes, git, the engines, evalens itself.
_PREFIXES = (
    ("LD_", "a dynamic loader variable"),
    ("DYLD_", "a dynamic loader variable"),
    ("MALLOC_", "a C library variable"),
    ("BASH_FUNC_", "an exported shell function"),
    ("PYTHON", "a Python start-up variable"),
    ("NODE_", "a Node.js runtime variable"),
    ("BUN_", "a Bun runtime variable"),
    ("DENO_", "a Deno runtime variable"),
    ("XDG_", "a location variable that tools load configuration from"),
    ("PIP_", "a package installer variable"),
    ("SSL_", "a TLS trust variable"),
    ("SSLKEYLOG", "a TLS key log variable"),
    ("OPENSSL_", "a TLS trust variable"),
    ("CURL_", "an HTTP client variable"),
    ("REQUESTS_", "an HTTP client variable"),
    ("GRPC_", "an RPC client variable"),
    ("KRB5", "a credential variable"),
    ("UV_", "a package installer variable"),
    ("GIT_", "a git variable"),
    ("SSH_", "an ssh variable"),
    ("NPM_CONFIG_", "an npm configuration variable"),
    ("ANTHROPIC_", "a model client variable"),
    ("OPENAI_", "a model client variable"),
    ("CLAUDE_", "a model client variable"),
    ("CODEX_", "a model client variable"),
    ("AWS_", "a cloud credential variable"),
    ("AZURE_", "a cloud credential variable"),
    ("GOOGLE_", "a cloud credential variable"),
    ("GCLOUD_", "a cloud credential variable"),
    ("VERTEX_", "a model client variable"),
    ("EVALENS_", "an evalens setting"),
    ("GITHUB_", "a CI variable"),
    ("ACTIONS_", "a CI variable"),
    ("RUNNER_", "a CI variable"),
)

# Suffixes (upper-cased): proxies, endpoints, keys and secrets of any client.
_SUFFIXES = (
    ("_PROXY", "a proxy variable"),
    ("_BASE_URL", "a base-URL variable"),
    ("_API_BASE", "a base-URL variable"),
    ("_API_URL", "a base-URL variable"),
    ("_ENDPOINT", "a base-URL variable"),
    ("_HOST", "an endpoint variable"),
    ("_URL", "an endpoint variable"),
    ("_URI", "an endpoint variable"),
    ("_API_KEY", "a key variable"),
    ("_APIKEY", "a key variable"),
    ("_KEY", "a key variable"),
    ("_TOKEN", "a key variable"),
    ("_SECRET", "a key variable"),
    ("_PASSWORD", "a key variable"),
    ("_PASSWD", "a key variable"),
    ("_CREDENTIALS", "a key variable"),
    ("_AUTH", "a key variable"),
)
_CONTAINS = (
    ("PROXY", "a proxy variable"),
    ("SECRET", "a key variable"),
    ("TOKEN", "a key variable"),
    ("PASSWORD", "a key variable"),
    ("PASSWD", "a key variable"),
    ("APIKEY", "a key variable"),
    ("API_KEY", "a key variable"),
    ("CREDENTIAL", "a key variable"),
    ("PRIVATE_KEY", "a key variable"),
)


def refused_reason(name: str) -> str | None:
    """Why an eval config may not set ``name`` for the agent (None: it may). Case does not matter: several
    clients read ``http_proxy`` as readily as ``HTTP_PROXY``."""
    if not NAME.match(name):
        return "not a plain variable name (letters, digits and underscores, not starting with a digit)"
    upper = name.upper()
    if upper in _EXACT:
        return "a variable a shell, the loader, a runtime or the sandbox itself reads"
    for prefix, what in _PREFIXES:
        if upper.startswith(prefix):
            return what
    for suffix, what in _SUFFIXES:
        if upper.endswith(suffix):
            return what
    for part, what in _CONTAINS:
        if part in upper:
            return what
    return None


def refusal(name: str) -> str | None:
    """The error for an eval config's ``env.<name>`` (None: allowed): the name and why, in one sentence."""
    why = refused_reason(name)
    if why is None:
        return None
    return (
        f"env.{name} is refused: {why}. An eval config's env may set only the eval's own settings; loader, "
        "shell, runtime, proxy, base-URL and key variables come from the runner's environment, never from "
        "an eval file (docs/sandbox.md)"
    )


def refusals(env: dict[str, str]) -> list[str]:
    """Every refusal for an ``env`` mapping, in its order."""
    return [r for r in (refusal(k) for k in env) if r is not None]
