/**
 * The client's error handler: a server that dies before it ever ran (evalens missing where it runs, a broken
 * install) is not restarted. The default restarts it 4 more times and every write to the dead pipe becomes a
 * "write EPIPE" toast; the start failure is reported once, by the caller of `client.start()`.
 */
import type {
  CloseAction,
  CloseHandlerResult,
  ErrorAction,
  ErrorHandler,
  ErrorHandlerResult,
  Message,
} from "vscode-languageclient/node";

/** The two actions used here, passed in because this module loads without the client library (unit tests). */
export interface StartupActions {
  shutdown: ErrorAction;
  doNotRestart: CloseAction;
}

export function startupAwareErrorHandler(
  hasRun: () => boolean,
  fallback: () => ErrorHandler,
  actions: StartupActions,
): ErrorHandler {
  return {
    error: (
      error: Error,
      message: Message | undefined,
      count: number | undefined,
    ): ErrorHandlerResult | Promise<ErrorHandlerResult> =>
      hasRun() ? fallback().error(error, message, count) : { action: actions.shutdown, handled: true },
    closed: (): CloseHandlerResult | Promise<CloseHandlerResult> =>
      hasRun() ? fallback().closed() : { action: actions.doNotRestart, handled: true },
  };
}
