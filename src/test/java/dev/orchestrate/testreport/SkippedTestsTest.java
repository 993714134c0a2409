package dev.orchestrate.testreport;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.io.ByteArrayOutputStream;
import java.io.PrintStream;
import java.net.URISyntaxException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The summary of skipped tests printed at the end of {@code verify}, read from surefire's and
 * failsafe's reports: the samples in {@code src/test/resources/testreport} are real reports of
 * surefire 3.6.1 (a test's assumption, {@code @Disabled}, a class's {@code @BeforeAll} assumption
 * that skips all its tests, a nested class), trimmed of their properties.
 */
class SkippedTestsTest {
  @TempDir
  Path dir;

  private static Path sample(String name) throws URISyntaxException {
    return Path.of(SkippedTestsTest.class.getResource("/testreport/" + name).toURI());
  }

  private static String print(SkippedTests.Summary summary, List<Path> dirs) {
    ByteArrayOutputStream bytes = new ByteArrayOutputStream();
    SkippedTests.print(summary, dirs, new PrintStream(bytes, true, StandardCharsets.UTF_8));
    return bytes.toString(StandardCharsets.UTF_8);
  }

  @Test
  void every_skipped_test_of_both_report_directories_is_listed_with_its_reason_a_class_once() throws Exception {
    List<Path> dirs = List.of(sample("surefire"), sample("failsafe"));
    SkippedTests.Summary summary = SkippedTests.read(dirs, null);

    assertEquals(3, summary.reports(), "the TEST-*.xml files, not failsafe-summary.xml");
    assertEquals(8, summary.tests());
    assertEquals(new SkippedTests.Skip("dev.orchestrate.e2e.SampleTest", "assumes", "npm is not on PATH: install it"),
        summary.skipped().get(0));
    Path here = Path.of("").toAbsolutePath();
    assertEquals("Skipped tests: 6 of 8 did not run (from " + here.relativize(dirs.get(0)) + " and "
        + here.relativize(dirs.get(1)) + "):\n"
        + "  SampleTest.assumes: npm is not on PATH: install it\n"
        + "  SampleTest.disabled: flaky on 2 cores\n"
        + "  SampleTest.Whole (2 tests): tmux not on PATH (Debian: apt-get install -y tmux): skipped\n"
        + "  SampleBrowserIT (2 tests): chromium, chromedriver not on PATH & <co>\n",
        print(summary, dirs));
  }

  @Test
  void reports_without_a_skip_say_no_test_was_skipped() throws Exception {
    Path failsafe = Files.createDirectories(dir.resolve("failsafe-reports"));
    Files.copy(sample("failsafe/TEST-dev.orchestrate.e2e.CrashLoopIT.xml"),
        failsafe.resolve("TEST-dev.orchestrate.e2e.CrashLoopIT.xml"));
    List<Path> dirs = List.of(dir.resolve("surefire-reports"), failsafe);

    assertEquals("Skipped tests: none, no test was skipped (1 test in " + dirs.get(0) + " and " + failsafe + ")\n",
        print(SkippedTests.read(dirs, null), dirs));
  }

  @Test
  void a_report_older_than_the_build_is_another_builds_and_left_out() throws Exception {
    Path reports = Files.createDirectories(dir.resolve("failsafe-reports"));
    Path old = Files.copy(sample("failsafe/TEST-dev.orchestrate.e2e.SampleBrowserIT.xml"),
        reports.resolve("TEST-dev.orchestrate.e2e.SampleBrowserIT.xml"));
    Files.copy(sample("failsafe/TEST-dev.orchestrate.e2e.CrashLoopIT.xml"),
        reports.resolve("TEST-dev.orchestrate.e2e.CrashLoopIT.xml"));
    Instant buildStart = Instant.now().minusSeconds(60);
    Files.setLastModifiedTime(old, FileTime.from(buildStart.minusSeconds(3600)));

    SkippedTests.Summary summary = SkippedTests.read(List.of(reports), buildStart);

    assertEquals(1, summary.reports());
    assertEquals(List.of(), summary.skipped());
  }

  @Test
  void no_report_of_this_build_says_so() throws Exception {
    List<Path> dirs = List.of(dir.resolve("surefire-reports"));
    assertEquals("Skipped tests: no test report of this build in " + dirs.get(0) + "\n",
        print(SkippedTests.read(dirs, null), dirs));
  }

  @Test
  void the_reason_is_the_message_alone_on_one_line() {
    assertEquals("chromium not on PATH", SkippedTests.reason("org.opentest4j.TestAbortedException: Assumption failed: "
        + "chromium not on PATH\n\tat org.junit.jupiter.api.Assumptions.assumeTrue(Assumptions.java:127)\n"));
    assertEquals("two lines", SkippedTests.reason("TestAbortedException: \nAssumption failed: two\n  lines"));
    assertEquals("void a.B.c() is @Disabled", SkippedTests.reason("void a.B.c() is @Disabled"));
    assertEquals("Error budget spent", SkippedTests.reason("Error budget spent"));
    assertEquals("(no reason given)", SkippedTests.reason("org.opentest4j.TestAbortedException\n\tat x.Y.z(Y.java:1)"));
  }
}
