-- Headless driver (no agent run in the editor): the matrix of the package's newest matrix run, restored from its
-- cell reports. In the case file $EVALENS_CASE_FILE: the hover on the case's name (the float as drawn, and the
-- server's Markdown), then :EvalensMatrix (the table in a split). Exit code 0 = both showed the matrix; the
-- pytest wrapper asserts on the JSON written to $EVALENS_NVIM_OUT.
local out = { steps = {} }

local function finish(code)
  local f = assert(io.open(os.getenv('EVALENS_NVIM_OUT'), 'w'))
  f:write(vim.fn.json_encode(out))
  f:close()
  vim.cmd((code == 0 and 'qall!') or 'cquit ' .. code)
end

local function fail(msg)
  out.error = msg
  finish(1)
end

local function client_of(b)
  local all = vim.fn.has('nvim-0.10') == 1 and vim.lsp.get_clients({ bufnr = b }) or vim.lsp.buf_get_clients(b)
  for _, c in pairs(all) do
    if c.name == 'evalens' then
      return c
    end
  end
end

local function floats()
  local found = {}
  for _, w in ipairs(vim.api.nvim_list_wins()) do
    if vim.api.nvim_win_get_config(w).relative ~= '' then
      table.insert(found, w)
    end
  end
  return found
end

local function run()
  vim.cmd('edit ' .. vim.fn.fnameescape(os.getenv('EVALENS_CASE_FILE')))
  local b = vim.api.nvim_get_current_buf()
  if not vim.wait(30000, function()
    local c = client_of(b)
    return c ~= nil and c.initialized and vim.lsp.buf_is_attached(b, c.id)
  end, 50) then
    return fail('the evalens client did not attach')
  end
  vim.api.nvim_win_set_cursor(0, { 1, 2 }) -- "name: tables"
  -- the server's hover text (what the float renders)
  local markdown = ''
  vim.wait(30000, function()
    local params = vim.lsp.util.make_position_params()
    local replies = vim.lsp.buf_request_sync(b, 'textDocument/hover', params, 10000) or {}
    for _, reply in pairs(replies) do
      local contents = reply.result and reply.result.contents
      if type(contents) == 'table' and type(contents.value) == 'string' then
        markdown = contents.value
      end
    end
    return markdown:find('Matrix', 1, true) ~= nil
  end, 500)
  out.hover_markdown = markdown
  if not markdown:find('Matrix', 1, true) then
    return fail('no matrix in the hover: ' .. markdown)
  end
  table.insert(out.steps, 'hover')
  -- the float as the user sees it (K)
  vim.lsp.buf.hover()
  vim.wait(10000, function() return #floats() > 0 end, 50)
  local win = floats()[1]
  if not win then
    return fail('the hover float did not open')
  end
  vim.wait(300)
  out.hover_screen = vim.api.nvim_buf_get_lines(vim.api.nvim_win_get_buf(win), 0, -1, false)
  vim.api.nvim_win_close(win, true)
  table.insert(out.steps, 'hover-float')
  -- :EvalensMatrix: the whole table in a split
  local before = vim.api.nvim_get_current_buf()
  vim.cmd('EvalensMatrix')
  if not vim.wait(30000, function() return vim.api.nvim_get_current_buf() ~= before end, 50) then
    return fail(':EvalensMatrix opened nothing')
  end
  out.matrix_screen = vim.api.nvim_buf_get_lines(0, 0, -1, false)
  table.insert(out.steps, 'matrix')
  finish(0)
end

local ok, err = pcall(run)
if not ok then
  fail(tostring(err))
end
