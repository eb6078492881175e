-- What a run looks like in Neovim: progress and verdict messages (0.7 shows no $/progress, 0.11 shows it
-- only with a statusline plugin), multi-line messages (a dry run's plan) in a float instead of a hit-ENTER
-- prompt, run verdicts as a short virtual text so they cannot push the lens off-screen, and K for hover.
local M = {}

local RUN_SOURCE = 'evalens-run'

--- One line for the command line, cut to the screen so it never asks for ENTER.
local function echo(text, hl)
  local width = math.max(10, vim.o.columns - 12)
  if vim.fn.strdisplaywidth(text) > width then
    text = vim.fn.strcharpart(text, 0, width - 1) .. '…'
  end
  vim.api.nvim_echo({ { text, hl or 'None' } }, false, {})
end
M.echo = echo

--- A message of several lines in a float near the cursor (closes when the cursor moves).
function M.show_lines(text, level)
  local lines = vim.split(text, '\n', { plain = true })
  if #lines <= 1 then
    vim.notify('evalens: ' .. text, level or vim.log.levels.INFO)
    return
  end
  vim.lsp.util.open_floating_preview(lines, 'markdown', { border = 'rounded', focus_id = 'evalens_message' })
end

local token_titles = {} -- progress token -> title ("Eval extract-text")

--- `$/progress` of evalens runs: stages on the command line, the end (verdict or "cancelled") as a message.
function M.progress(result)
  local value = result and result.value
  if type(value) ~= 'table' or type(result.token) ~= 'string' or not result.token:match('^evalens%-run') then
    return
  end
  if value.kind == 'begin' then
    token_titles[result.token] = value.title or 'Eval'
    echo(('evalens: %s: %s'):format(token_titles[result.token], value.message or 'started'))
  elseif value.kind == 'report' then
    echo(('evalens: %s: %s'):format(token_titles[result.token] or 'Eval', value.message or ''))
  elseif value.kind == 'end' then
    local title = token_titles[result.token] or 'Eval'
    token_titles[result.token] = nil
    local message = value.message or 'done'
    if message == 'cancelled' then
      message = 'cancelled (the lens keeps the last finished run)'
    end
    vim.notify(('evalens: %s: %s'):format(title, message), vim.log.levels.INFO)
  end
end

--- Wraps a handler table: our feedback first, then Neovim's own handler.
function M.wrap_handlers(handlers)
  local default_progress = vim.lsp.handlers['$/progress']
  handlers['$/progress'] = function(err, result, ctx, config)
    pcall(M.progress, result)
    if default_progress then
      return default_progress(err, result, ctx, config)
    end
  end
  local default_show = vim.lsp.handlers['window/showMessage']
  handlers['window/showMessage'] = function(err, result, ctx, config)
    if result and type(result.message) == 'string' and result.message:find('\n') then
      local levels = { vim.log.levels.ERROR, vim.log.levels.WARN, vim.log.levels.INFO, vim.log.levels.INFO }
      M.show_lines(result.message, levels[result.type] or vim.log.levels.INFO)
      return vim.NIL
    end
    return default_show(err, result, ctx, config)
  end
  return handlers
end

--- "evalens.runAll" answers with one result per case: say how it went in one line.
function M.summarize_runs(results)
  if type(results) ~= 'table' or #results == 0 then
    vim.notify('evalens: nothing to run', vim.log.levels.INFO)
    return
  end
  local counts, order = {}, { 'PASS', 'FAIL', 'ERROR', 'SKIP' }
  local cancelled = 0
  for _, r in ipairs(results) do
    if r.cancelled then
      cancelled = cancelled + 1
    else
      counts[r.verdict] = (counts[r.verdict] or 0) + 1
    end
  end
  local parts = {}
  for _, v in ipairs(order) do
    if counts[v] then
      table.insert(parts, ('%d %s'):format(counts[v], v))
    end
  end
  if cancelled > 0 then
    table.insert(parts, ('%d cancelled'):format(cancelled))
  end
  local level = (counts.FAIL or counts.ERROR) and vim.log.levels.WARN or vim.log.levels.INFO
  vim.notify(('evalens: %d run%s: %s'):format(#results, #results == 1 and '' or 's', table.concat(parts, ', ')), level)
end

function M.summarize_cancel(result)
  local n = type(result) == 'table' and tonumber(result.cancelled) or 0
  vim.notify(n > 0 and ('evalens: cancelled %d run%s'):format(n, n == 1 and '' or 's') or 'evalens: nothing was running',
    vim.log.levels.INFO)
end

--- Run verdicts are drawn as `eval FAIL` etc. in virtual text (the lens beside it carries the reason, the hover
--- everything): a long message first on the line would push the lens off-screen. Other diagnostics are untouched.
function M.short_verdicts(client)
  local function short(namespace, bufnr)
    local global = vim.diagnostic.config().virtual_text -- read when drawing: the user may turn it on later
    if type(global) == 'function' then
      global = global(namespace, bufnr)
    end
    if not global then
      return false
    end
    local opts = type(global) == 'table' and vim.deepcopy(global) or {}
    local user_format = opts.format
    opts.format = function(d)
      if d.source == RUN_SOURCE then
        return d.message:match('^eval %u+') or d.message
      end
      return user_format and user_format(d) or d.message
    end
    return opts
  end
  local namespaces = { vim.lsp.diagnostic.get_namespace(client.id) }
  if vim.fn.has('nvim-0.10') == 1 then
    table.insert(namespaces, vim.lsp.diagnostic.get_namespace(client.id, true)) -- pulled diagnostics
  end
  for _, ns in ipairs(namespaces) do
    vim.diagnostic.config({ virtual_text = short }, ns)
  end
end

--- K shows hover in eval buffers (0.7-0.9 leave K on `man`); a buffer mapping of the user's own stays.
function M.map_hover(bufnr, lhs)
  if not lhs then
    return
  end
  local existing = vim.fn.maparg(lhs, 'n', false, true)
  if type(existing) == 'table' and existing.buffer == 1 then
    return
  end
  vim.keymap.set('n', lhs, vim.lsp.buf.hover, { buffer = bufnr, silent = true, desc = 'evalens: hover' })
end

return M
