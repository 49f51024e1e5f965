// Prints the plain closing line `N passed, N failed, N skipped` that CI reads, after jest's own summary.
class SummaryReporter {
  onRunComplete(_contexts, results) {
    const { numPassedTests, numFailedTests, numPendingTests } = results;
    process.stdout.write(`\n${numPassedTests} passed, ${numFailedTests} failed, ${numPendingTests} skipped\n`);
  }
}
module.exports = SummaryReporter;
