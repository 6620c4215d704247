/**
 * The ibverbs-shaped API (Context, Pd, Mr, Cq, Qp, Ah) over the SRD dataplane. Arrives with the
 * issue "Verbs facade for SRD and UD queue pairs".
 */
package io.srdnic.verbs;
