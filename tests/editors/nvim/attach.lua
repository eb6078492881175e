-- Headless driver: open each file of $EVALENS_NVIM_FILES (one per line) with the README's setup, wait until an
-- initialised evalens client is attached to it (or the timeout), and report which were attached, the
-- root each client serves, and how lua/evalens/kinds.lua classifies the paths of $EVALENS_NVIM_PATHS.
-- Files of $EVALENS_NVIM_NOT must stay unattached (checked after 2 s).
local out = { version = vim.version().major .. '.' .. vim.version().minor, files = {}, kinds = {} }
local timeout = tonumber(os.getenv('EVALENS_NVIM_TIMEOUT') or '30') * 1000

local function write_out()
  local f = assert(io.open(os.getenv('EVALENS_NVIM_OUT'), 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
end

local function evalens_client(bufnr)
  local all = vim.fn.has('nvim-0.10') == 1 and vim.lsp.get_clients({ bufnr = bufnr }) or vim.lsp.buf_get_clients(bufnr)
  for _, c in pairs(all) do
    if c.name == 'evalens' and c.initialized then
      return c
    end
  end
end

local function lines(name)
  return (os.getenv(name) or ''):gmatch('[^\n]+')
end

local function main()
  for path in lines('EVALENS_NVIM_PATHS') do
    local kind = require('evalens').kind_of(path)
    out.kinds[path] = kind and kind.glob or vim.NIL
  end
  for path in lines('EVALENS_NVIM_FILES') do
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    local bufnr = vim.api.nvim_get_current_buf()
    local ok = vim.wait(timeout, function()
      return evalens_client(bufnr) ~= nil
    end, 50)
    local c = evalens_client(bufnr)
    out.files[path] = {
      attached = ok,
      filetype = vim.bo[bufnr].filetype,
      root = c and c.config.root_dir or vim.NIL,
      client = c and c.id or vim.NIL,
    }
  end
  for path in lines('EVALENS_NVIM_NOT') do
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    local bufnr = vim.api.nvim_get_current_buf()
    vim.wait(2000, function()
      return evalens_client(bufnr) ~= nil
    end, 50)
    out.files[path] = { attached = evalens_client(bufnr) ~= nil, filetype = vim.bo[bufnr].filetype }
  end
end

local ok, err = xpcall(main, debug.traceback)
if not ok then
  out.error = err
end
write_out()
vim.cmd(ok and 'qall!' or 'cquit 1')
