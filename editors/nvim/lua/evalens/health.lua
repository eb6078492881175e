-- :checkhealth evalens — is the server there (and which version), can evals run: the agent CLIs, the API key
-- variables (present or not; values are never shown), bubblewrap. The run checks come from `evalens doctor
-- --json`, the same checks every run does before an agent starts.
local M = {}

local h = vim.health or require('health')
local start = h.start or h.report_start
local ok = h.ok or h.report_ok
local warn = h.warn or h.report_warn
local err = h.error or h.report_error
local info = h.info or h.report_info

--- The server command and where it comes from: vim.lsp.config (0.11+), require('evalens').setup() (0.7-0.10), or
--- the default (the private venv of :EvalensInstall, else `evalens lsp` from PATH).
local function server_cmd()
  local install = require('evalens.install')
  local default = install.default_cmd()
  local function origin(cmd, where)
    if cmd[1] == install.python() then
      return ("the private venv of :EvalensInstall (%s)"):format(install.venv())
    end
    return where
  end
  if vim.lsp.config and vim.lsp.config.evalens and type(vim.lsp.config.evalens.cmd) == 'table' then
    local cmd = vim.lsp.config.evalens.cmd
    return cmd, origin(cmd, "vim.lsp.config('evalens')")
  end
  local loaded, evalens = pcall(require, 'evalens')
  if loaded and evalens.options.cmd then
    return evalens.options.cmd, "require('evalens').setup({ cmd = ... })"
  end
  return default, origin(default, 'the default (no cmd set; :EvalensInstall has not made its venv)')
end

--- The same command with `lsp` (and what follows it) replaced by `args`.
local function with_args(cmd, args)
  local out = {}
  for _, part in ipairs(cmd) do
    if part == 'lsp' then
      break
    end
    table.insert(out, part)
  end
  vim.list_extend(out, args)
  return out
end

local function run(cmd)
  local output = vim.fn.system(cmd)
  return vim.v.shell_error, output
end

function M.check()
  start('evalens language server')
  local cmd, from = server_cmd()
  info(('command: %s (from %s)'):format(table.concat(cmd, ' '), from))
  local fixes = {
    ":EvalensInstall [checkout, wheel or folder of wheels]: evalens in a private venv (stdpath('data')/evalens/venv), "
      .. 'no pip into the system Python',
    "or set cmd to { '/path/to/python', '-I', '-m', 'evalens', 'lsp' } (-I: the project folder is not on sys.path)",
  }
  if vim.fn.executable(cmd[1]) ~= 1 then
    err(('`%s` is not executable: the server cannot start'):format(cmd[1]), fixes)
    return
  end
  local code, version = run(with_args(cmd, { '--version' }))
  if code ~= 0 then
    err(('`%s` did not run (exit %d): %s'):format(table.concat(with_args(cmd, { '--version' }), ' '), code, vim.trim(version)), fixes)
    return
  end
  ok(('%s runs the server: %s'):format(vim.trim(version), table.concat(cmd, ' ')))
  local attached = 0
  for _, client in pairs(vim.lsp.get_clients and vim.lsp.get_clients() or vim.lsp.get_active_clients()) do
    if client.name == 'evalens' then
      attached = attached + 1
    end
  end
  info(('%d evalens client(s) running'):format(attached))

  start('evalens: running evals')
  local dcode, doctor = run(with_args(cmd, { 'doctor', '--json' }))
  local decoded, report = pcall(vim.fn.json_decode, doctor)
  if not decoded or type(report) ~= 'table' or type(report.checks) ~= 'table' then
    err('`evalens doctor --json` gave no report (exit ' .. dcode .. ')', { vim.trim(doctor):sub(1, 300) })
    return
  end
  for _, check in ipairs(report.checks) do
    local line = ('%s: %s'):format(check.name, check.detail ~= '' and check.detail or check.status)
    if check.status == 'ok' then
      ok(line)
    elseif check.required then
      err(line, check.fix ~= '' and { check.fix } or nil)
    else
      warn(line, check.fix ~= '' and { check.fix } or nil)
    end
  end

  local sandbox_checked = false
  for _, check in ipairs(report.checks) do
    sandbox_checked = sandbox_checked or check.name == 'sandbox'
  end
  if not sandbox_checked then
    if vim.fn.executable('bwrap') == 1 then
      ok('bubblewrap (bwrap) found')
    else
      warn('bubblewrap (bwrap) not found: runs use the weaker fallback sandbox', { 'apt-get install bubblewrap socat' })
    end
  end
end

return M
