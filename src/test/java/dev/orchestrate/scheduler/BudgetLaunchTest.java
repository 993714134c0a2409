package dev.orchestrate.scheduler;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import dev.orchestrate.outcome.Usage;
import java.math.BigDecimal;
import java.util.List;
import org.junit.jupiter.api.Test;

/** A launch happens only if what was spent, what running jobs may spend and what the new one may spend fit. */
class BudgetLaunchTest {
  private static final Budget DOLLAR = new Budget(1.0, null);
  private static final Budget.Estimate QUARTER = new Budget.Estimate(0.25, 1000L);

  private static Usage spent(double usd) {
    return new Usage(null, null, null, null, usd);
  }

  @Test
  void a_job_expected_to_fit_starts_and_reserves_the_estimate() {
    Budget.Launch launch = DOLLAR.launch(spent(0.5), new Budget.Reserve(0.25, 0), 1, 3, QUARTER, false);
    assertEquals(new Budget.Launch.Start(new Budget.Reserve(0.25, 0), null), launch);
  }

  @Test
  void a_job_that_could_pass_the_budget_is_refused_counting_what_running_jobs_hold() {
    assertInstanceOf(Budget.Launch.Spent.class,
        DOLLAR.launch(spent(0.5), new Budget.Reserve(0.3, 0), 1, 3, QUARTER, false));
    assertInstanceOf(Budget.Launch.Spent.class, DOLLAR.launch(spent(1.0), Budget.Reserve.NONE, 0, 4, QUARTER, false));
  }

  @Test
  void with_nothing_to_go_by_the_first_job_runs_alone_and_may_spend_what_is_left() {
    assertEquals(new Budget.Launch.Start(new Budget.Reserve(0.75, 0), null),
        DOLLAR.launch(spent(0.25), Budget.Reserve.NONE, 0, 4, Budget.Estimate.NONE, false));
    assertInstanceOf(Budget.Launch.Wait.class,
        DOLLAR.launch(spent(0.25), new Budget.Reserve(0.75, 0), 1, 3, Budget.Estimate.NONE, false));
  }

  @Test
  void an_agent_that_takes_a_cap_gets_an_equal_share_of_what_is_left_rounded_down() {
    assertEquals(new Budget.Launch.Start(new Budget.Reserve(0.333333, 0), new BigDecimal("0.333333")),
        DOLLAR.launch(Usage.UNKNOWN, Budget.Reserve.NONE, 0, 3, Budget.Estimate.NONE, true));
    Budget tiny = new Budget(0.001, null);
    Budget.Launch.Start start = (Budget.Launch.Start) tiny.launch(Usage.UNKNOWN, Budget.Reserve.NONE, 0, 4,
        Budget.Estimate.NONE, true);
    assertEquals(new BigDecimal("0.000250"), start.capUsd(), "4 agents under $0.001 get $0.00025 each");
    assertInstanceOf(Budget.Launch.Spent.class,
        tiny.launch(spent(0.001), Budget.Reserve.NONE, 0, 4, Budget.Estimate.NONE, true));
  }

  @Test
  void tokens_are_held_to_the_estimate_like_cost() {
    Budget tokens = new Budget(null, 2500L);
    Usage twoThousand = new Usage(2000L, null, null, null, null);
    assertInstanceOf(Budget.Launch.Spent.class,
        tokens.launch(twoThousand, Budget.Reserve.NONE, 0, 1, QUARTER, false));
    assertEquals(new Budget.Launch.Start(new Budget.Reserve(0, 1000), null),
        tokens.launch(new Usage(500L, null, null, null, null), new Budget.Reserve(0, 1000), 1, 1, QUARTER, false));
  }

  @Test
  void the_estimate_is_the_largest_cost_and_the_largest_token_total_of_the_recent_jobs() {
    Budget.Estimate e = Budget.Estimate.of(List.of(new Usage(10L, 5L, null, null, 0.1),
        new Usage(1000L, null, null, null, null), new Usage(1L, null, null, null, 0.3)));
    assertEquals(new Budget.Estimate(0.3, 1000L), e);
    assertEquals(Budget.Estimate.NONE, Budget.Estimate.of(List.of()));
  }
}
