package dev.orchestrate.outcome;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.time.Instant;
import java.time.ZoneId;
import java.time.ZoneOffset;
import java.util.Optional;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.CsvSource;

/** Reset times as the real CLIs print them, read against a fixed now (2026-11-26 10:30 UTC). */
class ResetTimesTest {
  private static final Instant NOW = Instant.parse("2026-11-26T10:30:00Z");

  @ParameterizedTest(name = "{0}")
  @CsvSource(delimiter = '|', nullValues = "-", value = {
      // Claude Code, subscription
      "You've hit your 5-hour limit · resets 4:04am (UTC)|2026-11-27T04:04:00Z",
      "You've hit your limit · resets 1pm (Europe/Lisbon)|2026-11-26T13:00:00Z",
      "You've hit your weekly limit · resets Dec 3, 2pm (UTC)|2026-12-03T14:00:00Z",
      "Claude usage limit reached. Your limit will reset at 12am.|2026-11-27T00:00:00Z",
      "You've hit your session limit · resets 11:45am (UTC)|2026-11-26T11:45:00Z",
      // Codex
      "You've hit your usage limit. Upgrade to Pro or try again at 3:28 PM.|2026-11-26T15:28:00Z",
      "You've hit your usage limit. try again at Apr 28th, 2026 10:03 PM.|2026-11-26T10:30:00Z",
      "You've hit your usage limit. try again at Dec 28th, 2026 10:03 PM.|2026-12-28T22:03:00Z",
      "You've hit your usage limit. try again in 3 days 6 hours 57 minutes.|2026-11-29T17:27:00Z",
      // Gemini CLI
      "TerminalQuotaError: You have exhausted your daily quota. Your quota will reset after 1h49m8s.|2026-11-26T12:19:08Z",
      // nothing readable
      "API Error: Request rejected (429) · rate limited|-",
      "resets 5|-",
      "try again at 25:99 PM|-",
      "try again in 999999999999 days|-"})
  void reads_each_shape(String text, String expected) {
    Optional<Instant> at = ResetTimes.parse(text, NOW, ZoneOffset.UTC);
    assertEquals(Optional.ofNullable(expected).map(Instant::parse), at, text);
  }

  @ParameterizedTest
  @CsvSource({"1796000000,2026-11-30T00:53:20Z", "1796000000000,2026-11-30T00:53:20Z",
      "1795000000,2026-11-26T10:30:00Z", "1795000000123,2026-11-26T10:30:00Z"})
  void an_epoch_is_seconds_or_milliseconds_by_magnitude_and_a_past_reset_is_now(long value, String expected) {
    assertEquals(Instant.parse(expected), ResetTimes.epoch(value, NOW).orElseThrow());
  }

  @ParameterizedTest
  @CsvSource({"0", "-5", "99999999999", "9999999999999"})
  void an_epoch_that_is_not_a_plausible_reset_is_unknown(long value) {
    assertEquals(Optional.empty(), ResetTimes.epoch(value, NOW));
  }

  @ParameterizedTest
  @CsvSource({"Europe/Lisbon", "America/New_York"})
  void a_clock_time_without_a_zone_is_read_in_the_local_zone(String zone) {
    Instant at = ResetTimes.parse("Your limit will reset at 12am.", NOW, ZoneId.of(zone)).orElseThrow();
    assertEquals(0, at.atZone(ZoneId.of(zone)).getHour());
  }
}
