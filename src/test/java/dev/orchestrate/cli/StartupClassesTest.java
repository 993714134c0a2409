package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import dev.orchestrate.Main;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeSet;
import java.util.concurrent.TimeUnit;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Start-up's guard (issue 46, item 5): the short commands scripts call load exactly the classes of
 * orchestrate and its libraries, and the JDK modules, that {@code startup-classes.txt} lists. A
 * change that makes one of them load a class it did not before (a new subcommand's dependencies
 * reached from the root command, a library touched on a path every command takes) fails here with
 * the classes named, before any timing could show it: each class is work at start-up and a line
 * the start-up archive must hold. Classes no longer loaded fail too, so the list stays exact.
 *
 * <p>Each command runs in a JVM of its own with the launcher's options, the class-load log on and
 * no class-data sharing (so every class is loaded and logged). Lambdas and other hidden classes
 * are left out (their names are not stable). To accept a change, run this test with
 * {@code -Dstartup.classes.update=true}: it rewrites the list, whose diff goes in the commit.
 */
class StartupClassesTest {
  private static final Path LIST = Path.of("src/test/resources/startup-classes.txt");
  private static final Pattern LOADED = Pattern.compile("\\[class,load\\s*\\] (\\S+) source: (.+)$");

  @TempDir
  Path dir;

  /** The commands, by the name they have in the list. */
  private Map<String, List<String>> commands(String state) {
    Map<String, List<String>> c = new LinkedHashMap<>();
    c.put("status --json", List.of("--state", state, "status", "--json"));
    c.put("status", List.of("--state", state, "status"));
    c.put("stats --json", List.of("--state", state, "stats", "--json"));
    c.put("stats", List.of("--state", state, "stats"));
    c.put("jobs --json", List.of("--state", state, "jobs", "--json"));
    c.put("memory list --json", List.of("--state", state, "memory", "list", "--json"));
    c.put("--version", List.of("--version"));
    return c;
  }

  @Test
  void the_short_commands_load_exactly_the_listed_classes() throws Exception {
    String state = state();
    Map<String, TreeSet<String>> now = new LinkedHashMap<>();
    for (Map.Entry<String, List<String>> e : commands(state).entrySet()) {
      now.put(e.getKey(), loaded(e.getValue()));
    }
    String text = render(now);
    if (Boolean.getBoolean("startup.classes.update")) {
      Files.writeString(LIST, text);
      return;
    }
    assertTrue(Files.exists(LIST), "no " + LIST + ": run with -Dstartup.classes.update=true to write it");
    String recorded = Files.readString(LIST);
    // The JDK's own classes differ between releases (which modules a locale or a charset comes
    // from): the list holds for the release it was recorded on, the baseline CI runs.
    org.junit.jupiter.api.Assumptions.assumeTrue(recorded.contains(jdk()),
        "startup-classes.txt was recorded on another JDK than " + jdk());
    Map<String, TreeSet<String>> listed = parse(recorded);
    List<String> problems = new ArrayList<>();
    for (Map.Entry<String, TreeSet<String>> e : now.entrySet()) {
      TreeSet<String> was = listed.getOrDefault(e.getKey(), new TreeSet<>());
      TreeSet<String> added = new TreeSet<>(e.getValue());
      added.removeAll(was);
      TreeSet<String> gone = new TreeSet<>(was);
      gone.removeAll(e.getValue());
      if (!added.isEmpty()) {
        problems.add(e.getKey() + " now loads " + added.size() + " more: " + names(added));
      }
      if (!gone.isEmpty()) {
        problems.add(e.getKey() + " no longer loads " + gone.size() + ": " + names(gone));
      }
    }
    if (!problems.isEmpty()) {
      fail(String.join("\n", problems) + "\nIf that is intended (and measured: src/bench/startup.sh), accept it with "
          + "./mvnw test -Dtest=StartupClassesTest -Dstartup.classes.update=true and commit " + LIST);
    }
  }

  /** A small real state: one item run to done in-process. */
  private String state() throws IOException {
    Path s = dir.resolve("state");
    Files.writeString(dir.resolve("orchestrate.yaml"), "agent:\n  command: [\"true\"]\n");
    Files.writeString(dir.resolve("backlog.yaml"), "items:\n  - {id: T-1, title: training, status: ready}\n");
    CliRunner.Result r = CliRunner.run("--quiet", "--state", s.toString(), "--config",
        dir.resolve("orchestrate.yaml").toString(), "run", dir.resolve("backlog.yaml").toString());
    assertEquals(0, r.exitCode(), "the run that makes the state: " + r.err());
    return s.toString();
  }

  /** The classes not of the JDK a command loads, and the JDK modules it loads classes from. */
  private static TreeSet<String> loaded(List<String> args) throws Exception {
    List<String> command = new ArrayList<>(List.of(Path.of(System.getProperty("java.home"), "bin", "java").toString(),
        "-XX:TieredStopAtLevel=1", "-XX:+UseSerialGC", "-XX:-UsePerfData", "-Xshare:off", "-Xlog:class+load=info",
        "-cp", System.getProperty("java.class.path"), Main.class.getName()));
    command.addAll(args);
    Process p = new ProcessBuilder(command).redirectError(ProcessBuilder.Redirect.DISCARD).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(60, TimeUnit.SECONDS), String.join(" ", args) + " did not end");
    assertEquals(0, p.exitValue(), String.join(" ", args) + ": " + out);
    TreeSet<String> classes = new TreeSet<>();
    for (String line : out.split("\n")) {
      Matcher m = LOADED.matcher(line.strip());
      if (!m.find()) {
        continue;
      }
      String name = m.group(1);
      String source = m.group(2);
      if (name.contains("$$Lambda") || name.contains("/0x") || name.contains("$Proxy")
          || source.startsWith("__JVM_") || source.startsWith("__dynamic")) {
        continue;
      }
      if (source.startsWith("jrt:/")) {
        classes.add("module " + source.substring("jrt:/".length()));
      } else if (!source.contains("shared objects file")) {
        classes.add(name);
      }
    }
    return classes;
  }

  /** The first 30 names, and how many more. */
  private static String names(TreeSet<String> classes) {
    List<String> first = classes.stream().limit(30).toList();
    return String.join(", ", first) + (classes.size() > first.size() ? " and " + (classes.size() - first.size())
        + " more" : "");
  }

  private static String jdk() {
    return "recorded on JDK " + Runtime.version().feature();
  }

  private static String render(Map<String, TreeSet<String>> now) {
    StringBuilder b = new StringBuilder("# What each short command loads: StartupClassesTest (regenerate with\n"
        + "# -Dstartup.classes.update=true). Classes of orchestrate and its libraries, and the JDK modules.\n"
        + "# " + jdk() + "\n");
    now.forEach((name, classes) -> {
      b.append("\n[").append(name).append("]\n");
      classes.forEach(c -> b.append(c).append('\n'));
    });
    return b.toString();
  }

  private static Map<String, TreeSet<String>> parse(String text) {
    Map<String, TreeSet<String>> out = new LinkedHashMap<>();
    TreeSet<String> current = null;
    for (String line : text.split("\n")) {
      if (line.isBlank() || line.startsWith("#")) {
        continue;
      }
      if (line.startsWith("[") && line.endsWith("]")) {
        current = new TreeSet<>();
        out.put(line.substring(1, line.length() - 1), current);
      } else if (current != null) {
        current.add(line.strip());
      }
    }
    return out;
  }
}
