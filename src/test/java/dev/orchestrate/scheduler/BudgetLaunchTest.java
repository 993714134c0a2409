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
  void an_agent_that_takes_a_cap_with_no_turn_known_runs_alone_with_what_is_left() {
    assertEquals(new Budget.Launch.Start(new Budget.Reserve(1.0, 0), new BigDecimal("1.000000")),
        DOLLAR.launch(Usage.UNKNOWN, Budget.Reserve.NONE, 0, 3, Budget.Estimate.NONE, true));
    assertInstanceOf(Budget.Launch.Wait.class,
        DOLLAR.launch(Usage.UNKNOWN, new Budget.Reserve(1.0, 0), 1, 3, Budget.Estimate.NONE, true));
    assertInstanceOf(Budget.Launch.Spent.class,
        new Budget(0.001, null).launch(spent(0.001), Budget.Reserve.NONE, 0, 4, Budget.Estimate.NONE, true));
  }

  @Test
  void an_agent_that_takes_a_cap_holds_a_share_of_two_turns_at_least_and_is_told_one_turn_less() {
    Budget.Estimate turn30 = Budget.Estimate.NONE.withTurn(0.30);
    Budget budget = new Budget(3.03, null); // five attempts of two $0.30 turns (issue 44)
    assertEquals(new Budget.Launch.Start(new Budget.Reserve(0.7575, 0), new BigDecimal("0.457500")),
        budget.launch(Usage.UNKNOWN, Budget.Reserve.NONE, 0, 4, turn30, true), "$3.03 over 4 slots, less a turn");
    Budget.Launch.Start two = (Budget.Launch.Start) DOLLAR.launch(Usage.UNKNOWN, Budget.Reserve.NONE, 0, 4,
        Budget.Estimate.NONE.withTurn(0.25), true);
    assertEquals(new Budget.Reserve(0.5, 0), two.reserve(), "$1.00 pays for two shares of two $0.25 turns, not four");
    assertEquals(new BigDecimal("0.250000"), two.capUsd());
    assertEquals(new Budget.Reserve(1.0, 0), ((Budget.Launch.Start) DOLLAR.launch(Usage.UNKNOWN, Budget.Reserve.NONE,
        0, 4, turn30, true)).reserve(), "and for one of two $0.30 turns");
    // less than two turns left: one job alone, while none runs; a turn's worth not left: spent
    assertInstanceOf(Budget.Launch.Wait.class, DOLLAR.launch(spent(0.5), new Budget.Reserve(0.2, 0), 1, 3, turn30,
        true));
    Budget.Launch.Start last = (Budget.Launch.Start) DOLLAR.launch(spent(0.5), Budget.Reserve.NONE, 0, 4, turn30,
        true);
    assertEquals(new BigDecimal("0.200000"), last.capUsd(), "$0.50 left: told $0.20, may take one $0.30 turn past it");
    assertInstanceOf(Budget.Launch.Spent.class, DOLLAR.launch(spent(0.75), Budget.Reserve.NONE, 0, 4, turn30, true),
        "$0.25 cannot pay for a $0.30 turn");
    assertInstanceOf(Budget.Launch.Spent.class, new Budget(0.05, null).launch(Usage.UNKNOWN, Budget.Reserve.NONE, 0,
        4, turn30, true), "a budget below one turn starts nothing once a turn is known");
  }

  /**
   * The bound, over many budgets, turn costs and concurrencies: jobs that each spend their cap plus
   * at most one turn (as Claude Code does) never pass the budget while the turn is the largest seen.
   */
  @Test
  void capped_jobs_that_each_pass_their_cap_by_a_turn_never_pass_the_budget_together() {
    java.util.Random random = new java.util.Random(44);
    for (int round = 0; round < 5000; round++) {
      double budgetUsd = 0.01 + random.nextDouble() * 20;
      double turn = 0.001 + random.nextDouble() * 2;
      int slots = 1 + random.nextInt(8);
      Budget budget = new Budget(budgetUsd, null);
      Usage spent = Usage.UNKNOWN;
      Budget.Reserve running = Budget.Reserve.NONE;
      java.util.List<Double> caps = new java.util.ArrayList<>();
      for (int job = 0; job < 200; job++) {
        Budget.Launch launch = budget.launch(spent, running, caps.size(), Math.max(1, slots - caps.size()),
            Budget.Estimate.NONE.withTurn(turn), true);
        if (launch instanceof Budget.Launch.Start start && caps.size() < slots) {
          running = running.plus(start.reserve());
          caps.add(start.capUsd().doubleValue() + turn); // the worst a capped job spends
        } else if (!caps.isEmpty()) {
          double spends = caps.remove(0);
          spent = spent.plus(new Usage(null, null, null, null, spends));
          running = running.minus(new Budget.Reserve(spends, 0)); // its share, which it spent in full
        } else {
          break;
        }
      }
      double total = (spent.costUsd() == null ? 0 : spent.costUsd()) + caps.stream().mapToDouble(d -> d).sum();
      org.junit.jupiter.api.Assertions.assertTrue(total <= budgetUsd + 1e-6, "budget " + budgetUsd + ", turn "
          + turn + ", " + slots + " slots: spent " + total);
    }
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
