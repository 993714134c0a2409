package dev.orchestrate;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * docs/architecture.md's package table against the code: its last column ("imports") is exactly
 * {@link ArchitectureTest#ARROWS} (the rule the build enforces), and its file counts are the
 * source tree's. So the map of the code a contributor reads first cannot drift from it.
 */
class ArchitectureDocTest {
  private static final Path DOC = Path.of("docs/architecture.md");
  private static final Path SOURCES = Path.of("src/main/java/dev/orchestrate");
  private static final Pattern ROW = Pattern
      .compile("^\\| (`([a-z.]+)`|\\(root\\)) \\| (\\d+) \\| .* \\| ([^|]+) \\|$");
  private static final Pattern NAME = Pattern.compile("`([a-z.]+)`");

  private record Row(int files, TreeSet<String> imports) {
  }

  private static Map<String, Row> table() throws IOException {
    Map<String, Row> rows = new LinkedHashMap<>();
    boolean inPackages = false;
    for (String line : Files.readAllLines(DOC)) {
      if (line.startsWith("## ")) {
        inPackages = line.equals("## Packages");
        continue;
      }
      Matcher m = ROW.matcher(line);
      if (inPackages && m.matches()) {
        TreeSet<String> imports = new TreeSet<>();
        Matcher n = NAME.matcher(m.group(4));
        while (n.find()) {
          imports.add(n.group(1));
        }
        rows.put(m.group(2) == null ? "root" : m.group(2), new Row(Integer.parseInt(m.group(3)), imports));
      }
    }
    return rows;
  }

  @Test
  void the_imports_column_is_the_arrows_the_build_enforces() throws IOException {
    Map<String, TreeSet<String>> documented = new TreeMap<>();
    table().forEach((name, row) -> documented.put(name, row.imports()));
    Map<String, TreeSet<String>> enforced = new TreeMap<>();
    ArchitectureTest.ARROWS.forEach((name, allowed) -> enforced.put(name, new TreeSet<>(allowed)));
    assertEquals(enforced, documented, "docs/architecture.md, ## Packages, against ArchitectureTest.ARROWS");
  }

  @Test
  void the_file_counts_are_the_source_trees() throws IOException {
    Map<String, Integer> documented = new TreeMap<>();
    Map<String, Integer> counted = new TreeMap<>();
    for (Map.Entry<String, Row> row : table().entrySet()) {
      documented.put(row.getKey(), row.getValue().files());
      counted.put(row.getKey(), files(row.getKey()));
    }
    assertEquals(counted, documented, "docs/architecture.md, ## Packages, the files column");
  }

  @Test
  void the_classes_over_500_lines_are_all_named() throws IOException {
    TreeSet<String> large = new TreeSet<>();
    for (Path file : sources()) {
      if (Files.readAllLines(file).size() > 500) {
        String relative = SOURCES.relativize(file).toString().replace('\\', '/');
        large.add(relative.substring(0, relative.length() - ".java".length()));
      }
    }
    assertEquals(large, named("**Classes over 500 lines**", "`([a-z/]+/[A-Z][A-Za-z]+)`"),
        "docs/architecture.md, **Classes over 500 lines**, against the source tree");
  }

  @Test
  void the_methods_over_60_lines_are_all_named() throws IOException {
    TreeSet<String> long_ = new TreeSet<>();
    for (Path file : sources()) {
      String relative = SOURCES.relativize(file.getParent()).toString().replace('\\', '/');
      MethodLengths.of(file).forEach((method, lines) -> {
        if (lines > 60) {
          long_.add(relative + "/" + method);
        }
      });
    }
    assertEquals(long_, named("**Methods over 60 lines**", "`([a-z/]+/[A-Z][A-Za-z]+\\.[a-zA-Z]+)`"),
        "docs/architecture.md, **Methods over 60 lines**, against the source tree");
  }

  /** What the paragraph of docs/architecture.md that starts with {@code title} names, as {@code pattern}'s group 1. */
  private static TreeSet<String> named(String title, String pattern) throws IOException {
    String doc = Files.readString(DOC);
    int start = doc.indexOf(title);
    assertTrue(start >= 0, "docs/architecture.md has a paragraph " + title);
    String paragraph = doc.substring(start, doc.indexOf("\n\n", start));
    TreeSet<String> named = new TreeSet<>();
    Matcher m = Pattern.compile(pattern).matcher(paragraph);
    while (m.find()) {
      named.add(m.group(1));
    }
    return named;
  }

  private static List<Path> sources() throws IOException {
    try (Stream<Path> files = Files.walk(SOURCES)) {
      return files.filter(f -> f.toString().endsWith(".java")).toList();
    }
  }

  @Test
  void a_method_is_measured_from_its_name_to_its_closing_brace_and_nothing_else_counts() throws IOException {
    Path file = Files.createTempDirectory("method-lengths").resolve("Sample.java");
    try {
      Files.writeString(file, """
          class Sample {
            // a comment with a brace {
            Sample(int a) {
              this.a = a;
            }

            <T> java.util.List<T> generic(
                T one,
                T two) throws java.io.IOException,
                IllegalStateException {
              Runnable r = () -> {
                if (one != null) {
                  System.out.println("}{");
                }
              };
              Object o = new Object() {
                @Override
                public String toString() {
                  return \"\"\"
                      }}}
                      \"\"\";
                }
              };
              return java.util.List.of(one, two);
            }
          }
          """);
      assertEquals(java.util.Map.of("Sample.Sample", 3, "Sample.generic", 19, "Sample.toString", 5),
          MethodLengths.of(file).entrySet().stream().collect(java.util.stream.Collectors.toMap(
              java.util.Map.Entry::getKey, java.util.Map.Entry::getValue)));
    } finally {
      Files.deleteIfExists(file);
      Files.delete(file.getParent());
    }
  }

  /** The Java files of a layer: its directory and below for a pattern ending in "..", else the directory alone. */
  private static int files(String layer) {
    String pattern = ArchitectureTest.pattern(layer);
    boolean below = pattern.endsWith("..");
    String pkg = below ? pattern.substring(0, pattern.length() - 2) : pattern;
    Path dir = SOURCES.getParent().getParent().resolve(pkg.replace('.', '/'));
    try (Stream<Path> walk = below ? Files.walk(dir) : Files.list(dir)) {
      List<Path> java = new ArrayList<>(walk.filter(p -> p.toString().endsWith(".java")).toList());
      return java.size();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
