package dev.orchestrate;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayDeque;
import java.util.Deque;
import java.util.Set;
import java.util.TreeMap;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The length of every method and constructor body of a Java source, in lines from its signature's
 * name to its closing brace: the braces are matched outside comments, strings, character literals
 * and text blocks, and a brace opens a method body when what precedes it is {@code name(...)},
 * perhaps with {@code throws ...}, and the name is not a statement keyword, {@code new X(...)}
 * (an anonymous class) or {@code record X(...)}. Lambdas and initializers are not methods; a method
 * of an anonymous class is measured on its own and within the method around it.
 */
final class MethodLengths {
  private static final Set<String> NOT_METHODS = Set.of("if", "for", "while", "switch", "catch", "synchronized",
      "try", "return", "new", "record", "else", "do", "throw", "case", "assert", "yield", "super", "this");
  // The argument list's runs possessive: one loop step a run of characters, not one a character,
  // whose recursion overflowed the stack of a C1-compiled test JVM on a long head.
  private static final Pattern HEAD = Pattern.compile(
      "(\\w+)\\s*(<[^<>]*>)?\\s*\\((?:[^()]++|\\([^()]*+\\))*+\\)\\s*(throws\\s+[\\w.,\\s<>]+)?\\s*$", Pattern.DOTALL);

  /** {@code new X(...) {}} is an anonymous class, {@code record X(...) {}} a record's body. */
  private static final Pattern PRECEDED_BY_A_KEYWORD = Pattern.compile("(^|\\W)(new|record)$");

  private MethodLengths() {
  }

  /** Each method of {@code file} as "Name.method" (the top-level class's name) and its length in lines. */
  static TreeMap<String, Integer> of(Path file) throws IOException {
    String text = Files.readString(file);
    String code = blanked(text);
    String top = file.getFileName().toString().replace(".java", "");
    TreeMap<String, Integer> lengths = new TreeMap<>();
    Deque<Integer> open = new ArrayDeque<>(); // for each open brace: the line of its method's name, or -1
    Deque<String> names = new ArrayDeque<>();
    int line = 1;
    for (int i = 0; i < code.length(); i++) {
      char c = code.charAt(i);
      if (c == '\n') {
        line++;
      } else if (c == '{') {
        String before = code.substring(Math.max(0, i - 2000), i);
        Matcher m = HEAD.matcher(before);
        String name = m.find() ? m.group(1) : null;
        String prefix = name == null ? "" : before.substring(0, m.start()).stripTrailing();
        if (name != null && !NOT_METHODS.contains(name) && !PRECEDED_BY_A_KEYWORD.matcher(prefix).find()) {
          int nameLine = line - countLines(before.substring(m.start()));
          open.push(nameLine);
          names.push(name);
        } else {
          open.push(-1);
          names.push("");
        }
      } else if (c == '}' && !open.isEmpty()) {
        int start = open.pop();
        String name = names.pop();
        if (start > 0) {
          lengths.merge(top + "." + name, line - start + 1, Math::max);
        }
      }
    }
    return lengths;
  }

  private static int countLines(String s) {
    int n = 0;
    for (int i = 0; i < s.length(); i++) {
      if (s.charAt(i) == '\n') {
        n++;
      }
    }
    return n;
  }

  /** {@code text} with every comment, string, character literal and text block blanked (newlines kept). */
  static String blanked(String text) {
    StringBuilder out = new StringBuilder(text.length());
    int i = 0;
    while (i < text.length()) {
      char c = text.charAt(i);
      if (text.startsWith("//", i)) {
        int end = text.indexOf('\n', i);
        end = end < 0 ? text.length() : end;
        blank(text, i, end, out);
        i = end;
      } else if (text.startsWith("/*", i)) {
        int end = text.indexOf("*/", i + 2);
        end = end < 0 ? text.length() : end + 2;
        blank(text, i, end, out);
        i = end;
      } else if (text.startsWith("\"\"\"", i)) {
        int end = text.indexOf("\"\"\"", i + 3);
        while (end > 0 && text.charAt(end - 1) == '\\') {
          end = text.indexOf("\"\"\"", end + 1);
        }
        end = end < 0 ? text.length() : end + 3;
        blank(text, i, end, out);
        i = end;
      } else if (c == '"' || c == '\'') {
        int end = i + 1;
        while (end < text.length() && text.charAt(end) != c) {
          end += text.charAt(end) == '\\' ? 2 : 1;
        }
        end = Math.min(text.length(), end + 1);
        blank(text, i, end, out);
        i = end;
      } else {
        out.append(c);
        i++;
      }
    }
    return out.toString();
  }

  private static void blank(String text, int from, int to, StringBuilder out) {
    for (int i = from; i < to; i++) {
      out.append(text.charAt(i) == '\n' ? '\n' : ' ');
    }
  }
}
