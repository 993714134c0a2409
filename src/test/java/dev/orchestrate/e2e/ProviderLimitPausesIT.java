package dev.orchestrate.e2e;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.fasterxml.jackson.databind.JsonNode;
import java.time.Duration;
import java.time.Instant;
import org.junit.jupiter.api.Test;

/**
 * Issue 44's provider-limit scenarios that wait for a stated reset or a pause, with the real Claude
 * Code CLI through the real launcher against {@link FakeAnthropic} (see
 * {@link ProviderLimitScenariosIT}):
 *
 * <ul>
 *   <li>a subscription limit met by 4 concurrent jobs: the run waits for the reset Claude Code
 *   states, and every item ends done, nothing counted;</li>
 *   <li>a run started after a pause's end starts at once (none ever refuses for a pause that is
 *   over), and {@code agents --json} shows the pause while it lasts.</li>
 * </ul>
 */
class ProviderLimitPausesIT extends ProviderLimitRuns {
  @Test
  void a_subscription_limit_met_by_four_jobs_waits_for_its_stated_reset_and_every_item_ends_done()
      throws Exception {
    project("wait", 5);
    try (FakeAnthropic model = usageLimit(15)) {
      model.answerFirst = 2;
      Ran ran = run(model, true);

      everyItemDoneNothingCounted(ran, 5);
      assertEquals(1, waves(model.refusedAt).size(),
          "the stated reset is waited for: nothing asked before it");
      long reset = model.resetsAt * 1000;
      long firstAfter = model.answeredAt.stream().filter(t -> t >= model.limitOpenedAt).min(Long::compare)
          .orElseThrow();
      assertTrue(firstAfter >= reset, "nothing answered before the reset");
      assertTrue(firstAfter - reset <= 30_000 + 20_000, "work went on " + (firstAfter - reset)
          + " ms after the reset (its 30 s margin, and a CLI's start)");
      System.out.printf("subscription limit of 15 s, 4 jobs: %d refusals, first answer %d ms after the reset%n",
          model.refusedAt.size(), firstAfter - reset);
    }
  }

  @Test
  void a_run_started_after_a_pause_ended_starts_at_once_and_agents_shows_the_pause_while_it_lasts()
      throws Exception {
    project("halt", 1);
    try (FakeAnthropic model = usageLimit(20)) {
      Ran first = run(model, false);
      assertEquals(0, first.exit(), first.err());
      assertEquals("usage_limit", first.report().path("halt_reason").asText(), first.report().toString());
      assertTrue(first.report().path("halt_detail").asText().contains("run again after "), first.report().toString());

      JsonNode agents = json(model, "agents", "--json");
      JsonNode pause = agents.path("agents").get(0).path("pause");
      assertEquals("usage_limit", pause.path("kind").asText(), agents.toString());
      Instant until = Instant.parse(pause.path("until").asText());
      assertTrue(until.isBefore(Instant.now().plusSeconds(40)), "the first backoff (30 s ±20 %): " + until);

      Thread.sleep(Math.max(0, Duration.between(Instant.now(), until).toMillis()) + 1000);
      Ran second = run(model, false);
      everyItemDoneNothingCounted(second, 1);
      assertTrue(json(model, "agents", "--json").path("agents").get(0).path("pause").isNull(),
          "the pause is over once the profile worked");
    }
  }
}
