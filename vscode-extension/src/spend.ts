/** The question a command that starts real agent runs asks once, before it spends: what will run, where. Pure of
 * VS Code so it is unit-tested directly. */

export interface SpendUnit {
  label: string;
  packageRoot: string;
}

const SHOWN = 12;

export function spendQuestion(units: SpendUnit[], what: string): { message: string; detail: string; run: string } {
  const packages = new Set(units.map((u) => u.packageRoot)).size;
  const n = units.length;
  const evals = `${n} eval${n === 1 ? "" : "s"}`;
  const where = packages > 1 ? ` in ${packages} packages` : "";
  const names = units.slice(0, SHOWN).map((u) => `• ${u.label}`);
  if (n > SHOWN) {
    names.push(`… and ${n - SHOWN} more`);
  }
  return {
    message: `Run ${evals}${where} (${what})? Each one is a real agent run and may cost money.`,
    detail: names.join("\n"),
    run: `Run ${evals}`,
  };
}
