// How late a timer or an answer may come on a machine busy with other suites: CI runs six test
// files at once on two cores, and event-loop stalls of half a second have been seen there. A
// deadline test allows this much over its deadline; what it guards against (a call that waits
// for TCP's own timeouts, or forever) is far longer.
export const BUSY_MACHINE_SLACK_MS = 1000
