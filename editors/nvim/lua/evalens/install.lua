-- :EvalensInstall [source] — evalens in a private virtual environment (stdpath('data')/evalens/venv), the same way
-- the VS Code extension installs the wheel it carries (issue 45): no `pip install` into the system Python (PEP 668
-- refuses it on Debian/Ubuntu) and no release on a package index assumed. `source` is
--   * a folder of wheels (for example a checkout's vscode-extension/bundled/wheels, `npm run bundle-python`):
--     installed with `--no-index`, so nothing is downloaded;
--   * an evalens wheel (`.whl`): its dependencies from the wheels beside it when there are (offline), else the index;
--   * an evalens checkout (a folder with pyproject.toml); default: the checkout this plugin lives in. Its bundled
--     wheels are used offline when they exist.
-- When the server command is not set (`cmd` left out), the venv's interpreter runs the server once it exists.
local M = {}

local uv = vim.uv or vim.loop
local is_windows = vim.fn.has('win32') == 1

--- What the last install did: running, done, ok, the log lines (each command and its output).
M.state = { running = false, done = false, ok = false, log = {} }

function M.venv()
  return vim.fn.stdpath('data') .. '/evalens/venv'
end

function M.python()
  return M.venv() .. (is_windows and '/Scripts/python.exe' or '/bin/python')
end

local function exists(path)
  return uv.fs_stat(path) ~= nil
end

local function is_dir(path)
  local stat = uv.fs_stat(path)
  return stat ~= nil and stat.type == 'directory'
end

--- The server command when the user set none: the private venv's evalens once `:EvalensInstall` made it (`-I`: the
--- project folder is not on sys.path), else `evalens lsp` from PATH.
function M.default_cmd()
  if vim.fn.executable(M.python()) == 1 then
    return { M.python(), '-I', '-m', 'evalens', 'lsp' }
  end
  return { 'evalens', 'lsp' }
end

--- The evalens checkout holding this plugin (editors/nvim/lua/evalens/install.lua → four folders up), or nil.
function M.checkout()
  local here = debug.getinfo(1, 'S').source:sub(2)
  local root = vim.fn.fnamemodify(here, ':p:h:h:h:h:h')
  local pyproject = root .. '/pyproject.toml'
  if exists(pyproject) and table.concat(vim.fn.readfile(pyproject, '', 20), '\n'):find('name = "evalens"', 1, true) then
    return root
  end
  return nil
end

--- The pip arguments that install `source` (see the header), or nil and why not.
function M.pip_args(source)
  source = vim.fn.fnamemodify(source, ':p'):gsub('/$', '')
  local function offline(dir)
    return { '--no-index', '--find-links', dir }
  end
  if is_dir(source) and exists(source .. '/pyproject.toml') then
    local wheels = source .. '/vscode-extension/bundled/wheels'
    local args = vim.fn.glob(wheels .. '/evalens-*.whl') ~= '' and offline(wheels) or {}
    return vim.list_extend(args, { source })
  end
  if is_dir(source) then
    if vim.fn.glob(source .. '/evalens-*.whl') == '' then
      return nil, ('%s holds no evalens wheel'):format(source)
    end
    return vim.list_extend(offline(source), { 'evalens' })
  end
  if source:match('%.whl$') and exists(source) then
    local dir = vim.fn.fnamemodify(source, ':h')
    local args = #vim.fn.glob(dir .. '/*.whl', false, true) > 1 and offline(dir) or {}
    return vim.list_extend(args, { source })
  end
  return nil, ('%s is neither an evalens checkout, a wheel, nor a folder of wheels'):format(source)
end

--- The first Python 3.11+ on PATH (vim.g.evalens_python first): its command, full path and version, and every
--- interpreter tried with why it was passed over.
function M.base_python()
  local tried = {}
  local candidates = { 'python3', 'python3.13', 'python3.12', 'python3.11', 'python' }
  if vim.g.evalens_python then -- a nil first item would end ipairs at once
    table.insert(candidates, 1, vim.g.evalens_python)
  end
  for _, py in ipairs(candidates) do
    if vim.fn.executable(py) == 1 then
      local out = vim.fn.systemlist({ py, '-I', '-c', "import sys; print(sys.executable); print('%d.%d.%d' % sys.version_info[:3])" })
      local exe, version = out[1], out[2] or ''
      local major, minor = version:match('^(%d+)%.(%d+)')
      if vim.v.shell_error == 0 and major and (tonumber(major) > 3 or (tonumber(major) == 3 and tonumber(minor) >= 11)) then
        return { cmd = py, exe = exe, version = version }, tried
      end
      table.insert(tried, ('%s (%s, Python %s): evalens needs 3.11+'):format(py, exe or '?', version))
    else
      table.insert(tried, py .. ': not on PATH')
    end
  end
  return nil, tried
end

local function notify(msg, level)
  vim.schedule(function()
    vim.notify('evalens: ' .. msg, level or vim.log.levels.INFO)
  end)
end

--- Runs the commands one after the other (jobstart: the editor stays usable), then on_done(ok, error).
local function chain(steps, on_done)
  local function step(i)
    if i > #steps then
      return on_done(true)
    end
    local argv = steps[i]
    table.insert(M.state.log, '$ ' .. table.concat(argv, ' '))
    local output = {}
    local function collect(_, data)
      for _, line in ipairs(data or {}) do
        if line ~= '' then
          table.insert(output, line)
          table.insert(M.state.log, line)
        end
      end
    end
    local job = vim.fn.jobstart(argv, {
      on_stdout = collect,
      on_stderr = collect,
      on_exit = function(_, code)
        if code ~= 0 then
          local last = output[#output] or ''
          for _, line in ipairs(output) do
            if line:match('^[%w%.]*[Ee]rror:') then
              last = line
              break
            end
          end
          return on_done(false, ('%s failed (exit %d): %s'):format(table.concat(argv, ' '), code, last))
        end
        step(i + 1)
      end,
    })
    if job <= 0 then
      on_done(false, ('cannot run %s'):format(argv[1]))
    end
  end
  step(1)
end

--- :EvalensInstall [source]: a fresh venv from the first Python 3.11+, then evalens from `source` into it.
function M.install(source)
  if M.state.running then
    return notify('an install is already running', vim.log.levels.WARN)
  end
  source = (source and source ~= '') and source or M.checkout()
  if not source then
    return notify('name an evalens checkout, a wheel or a folder of wheels: :EvalensInstall {path}', vim.log.levels.ERROR)
  end
  local pip, why = M.pip_args(source)
  if not pip then
    return notify(why, vim.log.levels.ERROR)
  end
  local base, tried = M.base_python()
  M.state = { running = true, done = false, ok = false, log = {}, source = source }
  for _, line in ipairs(tried) do
    table.insert(M.state.log, 'skipped ' .. line)
  end
  if not base then
    M.state = vim.tbl_extend('force', M.state, { running = false, done = true })
    M.state.error = 'no Python 3.11+ found. Tried: ' .. table.concat(tried, '; ')
    return notify(M.state.error, vim.log.levels.ERROR)
  end
  M.state.base = base
  notify(('installing evalens from %s into %s (Python %s, %s)…'):format(source, M.venv(), base.version, base.exe))
  vim.fn.mkdir(vim.fn.fnamemodify(M.venv(), ':h'), 'p')
  local steps = {
    { base.exe, '-I', '-m', 'venv', '--clear', M.venv() },
    vim.list_extend({ M.python(), '-I', '-m', 'pip', 'install', '--disable-pip-version-check', '--no-input' }, pip),
    { M.python(), '-I', '-c', 'import evalens.server' },
  }
  chain(steps, function(ok, err)
    M.state.running, M.state.done, M.state.ok, M.state.error = false, true, ok, err
    if not ok then
      local hint = err and err:find('ensurepip', 1, true) and ' (Debian/Ubuntu: apt install python3-venv)' or ''
      return notify(('install failed with %s (%s, Python %s): %s%s'):format(base.cmd, base.exe, base.version, err, hint), vim.log.levels.ERROR)
    end
    vim.schedule(function()
      -- the next server start uses the venv, unless the user named a command of their own
      if vim.lsp.config and vim.lsp.config.evalens then
        local cmd = vim.lsp.config.evalens.cmd
        if type(cmd) == 'table' and cmd[1] == 'evalens' and vim.fn.executable('evalens') ~= 1 then
          vim.lsp.config('evalens', { cmd = M.default_cmd() })
        end
      end
      notify(('evalens installed in %s; reopen an eval file (:e) to start the server'):format(M.venv()))
    end)
  end)
end

return M
