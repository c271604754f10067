package zeta;

import java.util.EnumSet;

/**
 * The tracker's own diagnostics over its last complete window of 150 updates (zeta_trainer_tracking_health): the
 * lowest swap rate of a neighbouring pair of rungs, the share of beta = 1 chains that changed mode, the lowest
 * effective sample size of one update's beta = 1 importance weights as a fraction of the chains, and the warnings
 * whose condition held. A warning says the tracked log Z's standard deviation should not be believed, not that
 * the value is wrong. Before the first complete window the values are NaN and there is no warning.
 */
public final class TrackingHealth {
  /** The warnings, each one bit of {@link #warningBits()} (the C API's ZETA_TRACKING_* values). */
  public enum Warning {
    /** A neighbouring pair of rungs swapped less than 20% of the time. */
    LOW_SWAP_RATE(ZetaNativeConstants.ZETA_TRACKING_LOW_SWAP_RATE),
    /** Less than 20% of the beta = 1 chains changed mode. */
    COLD_CHAINS_STUCK(ZetaNativeConstants.ZETA_TRACKING_COLD_CHAINS_STUCK),
    /** In some update, the beta = 1 importance weights' effective sample size was below 30% of the chains. */
    LOW_ESS(ZetaNativeConstants.ZETA_TRACKING_LOW_ESS),
    /** The bridges between rungs gave fewer than 10 independent readings in the window. */
    FEW_BRIDGE_SAMPLES(ZetaNativeConstants.ZETA_TRACKING_FEW_BRIDGE_SAMPLES);

    private final int bit;

    Warning(int bit) {
      this.bit = bit;
    }

    /** The ZETA_TRACKING_* bit. */
    public int bit() {
      return bit;
    }
  }

  private final double minSwapRate;
  private final double coldModeChanges;
  private final double minEssFraction;
  private final int warningBits;

  TrackingHealth(double minSwapRate, double coldModeChanges, double minEssFraction, int warningBits) {
    this.minSwapRate = minSwapRate;
    this.coldModeChanges = coldModeChanges;
    this.minEssFraction = minEssFraction;
    this.warningBits = warningBits;
  }

  /** The lowest swap acceptance rate of a neighbouring pair of rungs over the window. */
  public double minSwapRate() {
    return minSwapRate;
  }

  /** The share of beta = 1 chain slots whose mode (most probable h) changed from the window's start to its end. */
  public double coldModeChanges() {
    return coldModeChanges;
  }

  /** The lowest effective sample size of one update's beta = 1 importance weights, as a fraction of the chains. */
  public double minEssFraction() {
    return minEssFraction;
  }

  /** The warnings as the C API's bits (0: none). */
  public int warningBits() {
    return warningBits;
  }

  /** The warnings that held (a new set each call). */
  public EnumSet<Warning> warnings() {
    EnumSet<Warning> set = EnumSet.noneOf(Warning.class);
    for (Warning w : Warning.values()) {
      if ((warningBits & w.bit) != 0) {
        set.add(w);
      }
    }
    return set;
  }

  @Override
  public String toString() {
    return "swap rate " + minSwapRate + ", cold mode changes " + coldModeChanges + ", ESS fraction " + minEssFraction
        + ", warnings " + warnings();
  }
}
