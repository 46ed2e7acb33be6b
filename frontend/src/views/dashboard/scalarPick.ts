// The dashboard's scalar card draws up to two tags on one chart (MindInsight's card). Which two: a run's loss is
// what a user looks for first, so tags named like a loss come first, then the others, each in the server's order.
// The card's header says how many of the run's tags it draws ("2 of 4 tags").

const LOSS = /loss/i

export function dashboardScalarTags(tags: readonly string[], max = 2): string[] {
  const loss = tags.filter((t) => LOSS.test(t))
  const rest = tags.filter((t) => !LOSS.test(t))
  return [...loss, ...rest].slice(0, max)
}
