package dev.orchestrate.testreport;

import java.io.IOException;
import java.io.InputStream;
import java.io.PrintStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Instant;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import javax.xml.stream.XMLInputFactory;
import javax.xml.stream.XMLStreamConstants;
import javax.xml.stream.XMLStreamException;
import javax.xml.stream.XMLStreamReader;

/**
 * The summary of every skipped test, and why, printed at the end of {@code ./mvnw verify} (the
 * pom runs {@link #main} in the verify phase, before failsafe's verify can fail the build): read
 * from the {@code TEST-*.xml} reports surefire and failsafe wrote, whose {@code <skipped
 * message="...">} elements hold the reason (an assumption's message, {@code @Disabled}). Reports
 * older than the build ({@code --since}) are left out: they are another build's.
 */
public final class SkippedTests {
  private static final String ASSUMPTION = "Assumption failed: ";
  /** The first line of a stack trace: its frames, or a cause. */
  private static final Pattern STACK = Pattern.compile("^\\s+at \\S|^\\s*\\.\\.\\. \\d+ more|^Caused by: ");
  /** The exception's class that opens its text: {@code org.opentest4j.TestAbortedException: }. */
  private static final Pattern EXCEPTION = Pattern.compile("^([\\w$]+\\.)*[\\w$]*(Exception|Error)(: |$)");

  /** One test that was skipped: its class, its name (empty for a whole class), and why. */
  public record Skip(String className, String test, String reason) {
  }

  /** What the reports hold: how many tests ran in all, and those skipped, in report order. */
  public record Summary(int reports, int tests, List<Skip> skipped) {
  }

  private SkippedTests() {
  }

  /** Arguments: [--since ISO-INSTANT] DIR...; prints the summary on stdout, never fails the build. */
  public static void main(String[] args) {
    Instant since = null;
    List<Path> dirs = new ArrayList<>();
    for (int i = 0; i < args.length; i++) {
      if (args[i].equals("--since") && i + 1 < args.length) {
        since = parseInstant(args[++i]);
      } else {
        dirs.add(Path.of(args[i]));
      }
    }
    try {
      print(read(dirs, since), dirs, System.out);
    } catch (IOException | XMLStreamException | RuntimeException e) {
      // A summary is a courtesy: it must never be why a build fails.
      System.out.println("Could not summarise the skipped tests: " + e);
    }
  }

  private static Instant parseInstant(String text) {
    try {
      return Instant.parse(text);
    } catch (RuntimeException e) {
      return null; // an unexpected timestamp format: read every report rather than none
    }
  }

  /** The skipped tests of every {@code TEST-*.xml} in {@code dirs} modified at or after {@code since}. */
  public static Summary read(List<Path> dirs, Instant since) throws IOException, XMLStreamException {
    int reports = 0;
    int tests = 0;
    List<Skip> skipped = new ArrayList<>();
    for (Path dir : dirs) {
      if (!Files.isDirectory(dir)) {
        continue;
      }
      List<Path> files;
      try (Stream<Path> list = Files.list(dir)) {
        files = list.filter(p -> {
          String name = p.getFileName().toString();
          return name.startsWith("TEST-") && name.endsWith(".xml");
        }).sorted().toList();
      }
      for (Path file : files) {
        if (since != null && Files.getLastModifiedTime(file).toInstant().isBefore(since)) {
          continue;
        }
        reports++;
        tests += readReport(file, skipped);
      }
    }
    return new Summary(reports, tests, skipped);
  }

  /** Adds the report's skipped tests to {@code skipped}; returns its number of test cases. */
  static int readReport(Path file, List<Skip> skipped) throws IOException, XMLStreamException {
    XMLInputFactory factory = XMLInputFactory.newFactory();
    factory.setProperty(XMLInputFactory.SUPPORT_DTD, false);
    factory.setProperty(XMLInputFactory.IS_SUPPORTING_EXTERNAL_ENTITIES, false);
    int cases = 0;
    try (InputStream in = Files.newInputStream(file)) {
      XMLStreamReader xml = factory.createXMLStreamReader(in);
      String className = "";
      String test = "";
      while (xml.hasNext()) {
        if (xml.next() != XMLStreamConstants.START_ELEMENT) {
          continue;
        }
        switch (xml.getLocalName()) {
          case "testcase" -> {
            cases++;
            className = attribute(xml, "classname");
            test = attribute(xml, "name");
          }
          case "skipped" -> {
            // @Disabled("why") gives a message; an assumption gives none, but its exception with
            // the stack trace as the element's text.
            String message = attribute(xml, "message");
            skipped.add(new Skip(className, test, reason(message.isEmpty() ? xml.getElementText() : message)));
          }
          default -> {
            // properties, system-out, failures: not this summary's business
          }
        }
      }
      xml.close();
    }
    return cases;
  }

  private static String attribute(XMLStreamReader xml, String name) {
    String value = xml.getAttributeValue(null, name);
    return value == null ? "" : value;
  }

  /**
   * The reason in a skip's message or text: without the stack trace, the exception's class and
   * JUnit's "Assumption failed: ", on one line.
   */
  static String reason(String text) {
    List<String> lines = new ArrayList<>();
    for (String line : text.split("\\R")) {
      if (STACK.matcher(line).find()) {
        break;
      }
      lines.add(line.strip());
    }
    String reason = String.join(" ", lines).strip();
    reason = EXCEPTION.matcher(reason).replaceFirst("");
    reason = reason.startsWith(ASSUMPTION) ? reason.substring(ASSUMPTION.length()) : reason;
    reason = reason.replaceAll("\\s+", " ").strip();
    return reason.isEmpty() ? "(no reason given)" : reason;
  }

  /**
   * Prints the summary: one line per class and reason (its tests named, or counted when many), or
   * that no test was skipped.
   */
  public static void print(Summary summary, List<Path> dirs, PrintStream out) {
    if (summary.reports() == 0) {
      out.println("Skipped tests: no test report of this build in " + names(dirs));
      return;
    }
    if (summary.skipped().isEmpty()) {
      out.println("Skipped tests: none, no test was skipped (" + summary.tests()
          + (summary.tests() == 1 ? " test" : " tests") + " in " + names(dirs) + ")");
      return;
    }
    out.println("Skipped tests: " + summary.skipped().size() + " of " + summary.tests()
        + " did not run (from " + names(dirs) + "):");
    Map<String, List<String>> byClassAndReason = new LinkedHashMap<>();
    for (Skip s : summary.skipped()) {
      byClassAndReason.computeIfAbsent(simpleName(s.className()) + "\u0000" + s.reason(), k -> new ArrayList<>())
          .add(s.test());
    }
    for (Map.Entry<String, List<String>> e : byClassAndReason.entrySet()) {
      String[] key = e.getKey().split("\u0000", 2);
      out.println("  " + key[0] + which(e.getValue()) + ": " + key[1]);
    }
  }

  private static String which(List<String> tests) {
    List<String> named = tests.stream().filter(t -> !t.isEmpty()).toList();
    if (named.isEmpty()) {
      return "";
    }
    if (named.size() == 1) {
      return "." + named.get(0);
    }
    return " (" + named.size() + " tests)";
  }

  private static String simpleName(String className) {
    return className.substring(className.lastIndexOf('.') + 1).replace('$', '.');
  }

  private static String names(List<Path> dirs) {
    Path here = Path.of("").toAbsolutePath();
    List<String> names = new ArrayList<>();
    for (Path d : dirs) {
      Path abs = d.toAbsolutePath();
      names.add(abs.startsWith(here) ? here.relativize(abs).toString() : d.toString());
    }
    return String.join(" and ", names);
  }

}
