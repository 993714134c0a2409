package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 44's provider-limit scenarios with the real Claude Code CLI (pinned, from the npm registry)
 * through the real launcher, against {@link FakeAnthropic}, which answers as the API does, where
 * the CLI is told no reset: a usage limit that opens after some turns and lifts a set time later
 * (with an API key Claude Code says no reset), and a 529 the CLI is told not to retry.
 *
 * <ul>
 *   <li>an API-key limit of 20 s met by 4 concurrent jobs: every item ends done, nothing counted,
 *   the jobs refused together are one strike, and the first answer after the limit lifts comes
 *   within the documented backoff of that strike;</li>
 *   <li>a 529 result is {@code rate_limited}, not a usage limit.</li>
 * </ul>
 * The scenarios with a stated reset or a pause to wait for are {@link ProviderLimitPausesIT}: the
 * two classes are of a length, so that the end-to-end JVMs share them out evenly.
 */
class ProviderLimitScenariosIT extends ProviderLimitRuns {
  @Test
  void an_api_key_limit_of_20_s_met_by_four_jobs_is_one_strike_and_every_item_ends_done_within_its_backoff()
      throws Exception {
    project("wait", 6);
    // 20 s: the wave's probe (30 s ±20 % after it, so 24 s at the earliest) always comes after
    // the lift, so the scenario always ends in one wave, and four jobs counted as four strikes
    // would wait the fourth backoff (240 s), far past the bound below. At 60 s it always made two
    // waves (110 s, the suite's longest scenario); at 90 s the jitter made two or three (100 or
    // 240 s). The backoff's doubling from wave to wave is LimitPolicyTest's.
    try (FakeAnthropic model = usageLimit(20)) {
      model.answerFirst = 4; // two phases (a Bash call and a final text each), then the limit
      Ran ran = run(model, false);

      everyItemDoneNothingCounted(ran, 6);
      List<List<Long>> waves = waves(model.refusedAt);
      assertTrue(waves.size() >= 1 && waves.size() <= 3, "refusals in " + waves.size() + " waves: " + waves);
      // Claude Code with an API key says no reset: the pause ends by the backoff, 30 s then 60 s
      // (±20 %) a strike, and a strike is a wave, not a job (issue 44: four jobs refused together
      // were four strikes, and the pause grew to the fourth backoff).
      long lifted = model.limitOpenedAt + model.limitSeconds * 1000L;
      long firstAfter = model.answeredAt.stream().filter(t -> t >= lifted).min(Long::compare).orElseThrow();
      long backoff = 30_000L << (waves.size() - 1);
      assertTrue(firstAfter - lifted <= backoff * 12 / 10 + 20_000, "the first answer came " + (firstAfter - lifted)
          + " ms after the limit lifted, after " + waves.size() + " waves (backoff " + backoff + " ms)");
      System.out.printf("api-key limit of 20 s, 4 jobs: %d refusals in %d waves, first answer %d ms after the lift, "
          + "run %d ms%n", model.refusedAt.size(), waves.size(), firstAfter - lifted,
          ran.report().path("duration_ms").asLong()); // the figures of docs/benchmarks.md
      assertEquals(waves.size(), ran.err().lines().filter(l -> l.contains("claude paused until")).count(),
          "one line a pause: " + ran.err());
    }
  }

  @Test
  void a_529_result_is_rate_limited_not_counted_and_the_item_is_done() throws Exception {
    project("halt", 1);
    try (FakeAnthropic model = new FakeAnthropic()) {
      model.mode = FakeAnthropic.Mode.OVERLOADED;
      model.noRetry = true; // x-should-retry: false: Claude Code gives up at once, "API Error: 529 …"
      model.failFirst = 1;
      Ran ran = run(model, false);

      assertEquals(0, ran.exit(), ran.err());
      assertEquals("all_done", ran.report().path("halt_reason").asText(), "a 529 is no usage limit: " + ran.report());
      List<String> classes = new ArrayList<>();
      for (JsonNode job : json(model, "jobs", "--json").path("jobs")) {
        classes.add(job.path("outcome").asText());
      }
      assertTrue(classes.contains("rate_limited") && classes.contains("succeeded"), classes.toString());
      assertEquals(1, ran.report().path("phases_run").asInt());
    }
  }
}
