package dev.orchestrate.yaml;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class SizesTest {

  @ParameterizedTest
  @CsvSource({
      "0, 0",
      "1048576, 1048576",
      "512B, 512",
      "2KB, 2000",
      "5MB, 5000000",
      "1GB, 1000000000",
      "2KiB, 2048",
      "10MiB, 10485760",
      "3GiB, 3221225472",
      "10mib, 10485760",
      "'512 KB', 512000",
  })
  void parses_bytes_with_decimal_and_binary_units(String text, long expected) {
    assertEquals(expected, Sizes.parse(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"10 megs", "1.5MiB", "-1", "MiB", "", "10TB", "10 M"})
  void rejects_other_forms_naming_the_accepted_ones(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Sizes.parse(text));
    assertEquals("bad size '" + text + "': use a whole number of bytes, optionally followed by B, KB, MB, GB "
        + "(x1000) or KiB, MiB, GiB (x1024), e.g. 10MiB", e.getMessage());
  }

  @Test
  void rejects_a_size_too_large_to_represent() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Sizes.parse("9999999999999GiB"));
    assertEquals("bad size '9999999999999GiB': too large", e.getMessage());
  }

  @ParameterizedTest
  @CsvSource({
      "10485760, 10MiB",
      "2048, 2KiB",
      "5000000, 5MB",
      "1500, 1500B",
      "0, 0B",
      "1073741824, 1GiB",
  })
  void formats_with_the_largest_exact_unit(long bytes, String expected) {
    assertEquals(expected, Sizes.format(bytes));
    assertEquals(bytes, Sizes.parse(expected));
  }
}
