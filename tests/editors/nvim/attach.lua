-- Headless driver: open each file of $EVALENS_NVIM_FILES (one per line) with the README's setup, wait until an
-- initialised evalens client is attached to it (or the timeout), and report which were attached, the
-- root each client serves, and how lua/evalens/kinds.lua classifies the paths of $EVALENS_NVIM_PATHS.
-- Files of $EVALENS_NVIM_NOT must stay unattached (checked after 2 s).
local common = dofile(vim.fn.fnamemodify(debug.getinfo(1, 'S').source:sub(2), ':h') .. '/common.lua')
local out = { version = common.version(), files = {}, kinds = {} }
local timeout = tonumber(os.getenv('EVALENS_NVIM_TIMEOUT') or '30') * 1000

local function lines(name)
  return (os.getenv(name) or ''):gmatch('[^\n]+')
end

common.run(out, function()
  for path in lines('EVALENS_NVIM_PATHS') do
    local kind = require('evalens').kind_of(path)
    out.kinds[path] = kind and kind.glob or vim.NIL
  end
  for path in lines('EVALENS_NVIM_FILES') do
    vim.cmd('edit ' .. vim.fn.fnameescape(path))
    local bufnr = vim.api.nvim_get_current_buf()
    local ok = common.wait_attached(bufnr, timeout)
    local c = common.attached(bufnr)
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
    common.wait_attached(bufnr, 2000)
    out.files[path] = { attached = common.attached(bufnr) ~= nil, filetype = vim.bo[bufnr].filetype }
  end
end)
