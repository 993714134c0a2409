package dev.orchestrate.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.List;
import java.util.regex.Pattern;
import org.junit.jupiter.api.Test;

/** The argument shapes the short commands check by hand answer as the regular expressions they replace. */
class ArgumentShapesTest {
  private static final List<String> ARGS = List.of("", "-", "--", "-v", "-vv", "-vvvvv", "-q", "-qq", "-vq", "-qv",
      "-vqx", "-x", "v", "vv", "--verbose", "--quiet", "--verbose=1", "--quietly", "-verbose", "--v", "-V", "-vV",
      "0", "7", "42", "123456789", "1234567890", "0000", "-1", "+1", "1.5", "1e3", "12a", "\u0661", "\uff11", " 1",
      "1 ", "--state", "status");

  @Test
  void root_flags_are_the_expression_they_replace() {
    Pattern expression = Pattern.compile("-[vq]+|--verbose|--quiet");
    for (String arg : ARGS) {
      assertEquals(expression.matcher(arg).matches(), Cli.rootFlags(arg), arg);
    }
  }

  @Test
  void verbosity_and_numbers_are_the_expressions_they_replace() {
    Pattern verbose = Pattern.compile("-v+");
    Pattern number = Pattern.compile("[0-9]{1,9}");
    for (String arg : ARGS) {
      assertEquals(verbose.matcher(arg).matches(), FastPath.verbose(arg), arg);
      assertEquals(number.matcher(arg).matches(), FastPath.digits(arg), arg);
    }
  }
}
