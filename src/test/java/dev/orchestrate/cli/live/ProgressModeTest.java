package dev.orchestrate.cli.live;

import static dev.orchestrate.cli.live.ProgressMode.LIVE;
import static dev.orchestrate.cli.live.ProgressMode.NONE;
import static dev.orchestrate.cli.live.ProgressMode.PLAIN;
import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.Map;
import org.junit.jupiter.api.Test;

class ProgressModeTest {
  private static final Map<String, String> XTERM = Map.of("TERM", "xterm-256color");

  @Test
  void a_terminal_gets_the_live_view() {
    assertEquals(LIVE, ProgressMode.choose(false, false, false, true, XTERM));
  }

  @Test
  void quiet_means_no_progress_at_all_even_on_a_terminal() {
    assertEquals(NONE, ProgressMode.choose(true, false, false, true, XTERM));
    assertEquals(NONE, ProgressMode.choose(true, true, false, false, Map.of()));
  }

  @Test
  void pipes_and_ci_get_plain_lines() {
    assertEquals(PLAIN, ProgressMode.choose(false, false, false, false, XTERM));
  }

  @Test
  void json_gets_plain_lines_on_a_terminal() {
    assertEquals(PLAIN, ProgressMode.choose(false, true, false, true, XTERM));
  }

  @Test
  void a_dumb_or_unknown_terminal_gets_plain_lines() {
    assertEquals(PLAIN, ProgressMode.choose(false, false, false, true, Map.of("TERM", "dumb")));
    assertEquals(PLAIN, ProgressMode.choose(false, false, false, true, Map.of()));
  }

  @Test
  void no_live_flag_turns_the_live_view_off() {
    assertEquals(PLAIN, ProgressMode.choose(false, false, true, true, XTERM));
  }

  @Test
  void orchestrate_no_live_turns_the_live_view_off_unless_empty_or_zero() {
    assertEquals(PLAIN,
        ProgressMode.choose(false, false, false, true, Map.of("TERM", "xterm", "ORCHESTRATE_NO_LIVE", "1")));
    assertEquals(PLAIN,
        ProgressMode.choose(false, false, false, true, Map.of("TERM", "xterm", "ORCHESTRATE_NO_LIVE", "yes")));
    assertEquals(LIVE,
        ProgressMode.choose(false, false, false, true, Map.of("TERM", "xterm", "ORCHESTRATE_NO_LIVE", "0")));
    assertEquals(LIVE,
        ProgressMode.choose(false, false, false, true, Map.of("TERM", "xterm", "ORCHESTRATE_NO_LIVE", "")));
  }
}
