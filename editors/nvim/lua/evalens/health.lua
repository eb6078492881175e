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

--- The configured server command: vim.lsp.config (0.11+) or require('evalens').setup() (0.7-0.10).
local function server_cmd()
  if vim.lsp.config and vim.lsp.config.evalens and type(vim.lsp.config.evalens.cmd) == 'table' then
    return vim.lsp.config.evalens.cmd
  end
  local loaded, evalens = pcall(require, 'evalens')
  return loaded and evalens.options.cmd or { 'evalens', 'lsp' }
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
  local cmd = server_cmd()
  if vim.fn.executable(cmd[1]) ~= 1 then
    err(('`%s` is not executable'):format(cmd[1]), {
      'pip install evalens (or pipx install evalens)',
      "or set cmd to { '/path/to/python', '-I', '-m', 'evalens', 'lsp' } (-I: the project folder is not on sys.path)",
    })
    return
  end
  local code, version = run(with_args(cmd, { '--version' }))
  if code ~= 0 then
    err(('`%s` did not run: %s'):format(table.concat(with_args(cmd, { '--version' }), ' '), vim.trim(version)),
      { 'pip install evalens into the Python that cmd names' })
    return
  end
  ok(('%s (%s)'):format(vim.trim(version), table.concat(cmd, ' ')))
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
