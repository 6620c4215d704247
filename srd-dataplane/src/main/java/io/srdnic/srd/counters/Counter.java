package io.srdnic.srd.counters;

/**
 * One counter as a reader saw it: its record's id, type ({@link CountersLayout#COUNTER} or
 * {@link CountersLayout#GAUGE}), key, label ("scope name") and value.
 */
public record Counter(int id, int type, long key, String label, long value) {

    /** The label's scope, {@code k=v,k=v} (empty when the label has none). */
    public String scope() {
        int space = label.lastIndexOf(' ');
        return space < 0 ? "" : label.substring(0, space);
    }

    /** The label's name, {@code [a-z0-9_]+}. */
    public String name() {
        return label.substring(label.lastIndexOf(' ') + 1);
    }

    public boolean isGauge() {
        return type == CountersLayout.GAUGE;
    }
}
