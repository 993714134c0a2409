package dev.orchestrate.config;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;

import java.time.Duration;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;
import org.junit.jupiter.params.provider.ValueSource;

class DurationsTest {

  @ParameterizedTest
  @CsvSource({
      "500ms, PT0.5S",
      "90s, PT1M30S",
      "30m, PT30M",
      "2h, PT2H",
      "1h30m, PT1H30M",
      "1m30s, PT1M30S",
      "1h0m5s, PT1H5S",
      "2h15m10s250ms, PT2H15M10.25S",
      "48h, PT48H",
      "7d, PT168H",
      "1d12h, PT36H",
  })
  void parses_numbers_with_ms_s_m_h_or_d_and_combinations_of_them(String text, String expected) {
    assertEquals(Duration.parse(expected), Durations.parse(text));
  }

  @ParameterizedTest
  @ValueSource(strings = {"3 minutes", "30", "1.5h", "-5m", "30M", "1h 30m", "30m1h", "m", "", "ms5"})
  void rejects_malformed_text_naming_the_accepted_forms(String text) {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse(text));
    assertEquals("bad duration '" + text + "': use a number with ms, s, m, h or d, e.g. 90s, 30m, 2h, 7d",
        e.getMessage());
  }

  @Test
  void rejects_zero() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> Durations.parse("0s"));
    assertEquals("bad duration '0s': must be more than zero", e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> Durations.parse("0h0m"));
  }

  @Test
  void rejects_a_duration_too_large_to_represent() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class,
        () -> Durations.parse("99999999999999999999h"));
    assertEquals("bad duration '99999999999999999999h': too large", e.getMessage());
  }

  @ParameterizedTest
  @CsvSource({
      "PT30M, 30m",
      "PT1H30M, 1h30m",
      "PT1M30S, 1m30s",
      "PT0.5S, 500ms",
      "PT2H, 2h",
      "PT50H, 2d2h",
      "PT720H, 30d",
      "PT24H, 1d",
      "PT1H0.001S, 1h1ms",
      "PT0S, 0s",
      "-PT5M, -5m",
  })
  void formats_in_the_compact_form(String duration, String expected) {
    assertEquals(expected, Durations.format(Duration.parse(duration)));
  }

  @ParameterizedTest
  @ValueSource(strings = {"500ms", "90s", "30m", "2h", "1h30m", "2h15m10s250ms", "30d", "1d12h"})
  void format_reads_back_to_the_same_duration(String text) {
    Duration d = Durations.parse(text);
    assertEquals(d, Durations.parse(Durations.format(d)));
  }
}
