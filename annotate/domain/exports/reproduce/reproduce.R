# Recompute the study verdict of report.json from ratings.csv with lme4/lmerTest.
# Per dimension: each annotator's chosen - rejected score per pair, a linear mixed model with
# crossed random pair and annotator effects (REML), Satterthwaite df (lmerTest; on a singular
# fit Kenward-Roger's SE and df, with the pbkrtest package, as the report); TOST at the
# dimension's margin and the one-sided test of a difference larger than the smallest effect of
# interest (both read from report.json's settings). Reads ratings.csv (the same rows as
# ratings.parquet; Debian's R has no Parquet reader): runs on Debian's R with
# r-cran-lme4 and r-cran-lmertest only (jsonlite comes with them).
# Also the report's Krippendorff's alphas (coders = annotators), written out below in base R:
# per dimension ordinal and interval with units (pair, response), interval on each annotator's
# chosen - rejected with units = pairs, nominal on the rubric preference with units = pairs.
# Run: Rscript reproduce.R [folder]
suppressMessages({library(lmerTest); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
folder <- if (length(args) > 0) args[1] else "."
report <- fromJSON(file.path(folder, "report.json"))
ratings <- read.csv(file.path(folder, "ratings.csv"), stringsAsFactors = FALSE)
# Only the digits that reproduce (the card's DECIMALS): estimate and interval 3 decimals, df 1,
# p-values 3 ("<0.001" below), alphas 3. lme4 and prb-annotate's REML agree far closer than that.
decimals <- c(estimate = 3, df = 1, p = 3, alpha = 3)
printed <- function(x, kind) {
  if (is.na(x)) return("NA")
  smallest <- 10^-decimals[["p"]]
  if (kind == "p" && x < smallest) return(paste0("<", formatC(smallest, format = "f", digits = decimals[["p"]])))
  text <- formatC(x, format = "f", digits = decimals[[kind]])
  if (startsWith(text, "-") && as.numeric(text) == 0) substring(text, 2) else text
}
say <- function(...) cat(paste(c(...), collapse = " "), "\n", sep = "")  # one line, as the card
keep <- rep(TRUE, nrow(ratings))
if ("excluded" %in% names(ratings)) keep <- keep & !as.logical(ratings$excluded)
if ("purpose" %in% names(ratings)) keep <- keep & (is.na(ratings$purpose) | ratings$purpose %in% c("", "rating"))
if ("status" %in% names(ratings)) keep <- keep & (is.na(ratings$status) | ratings$status != "skipped")
if ("annotator_excluded" %in% names(ratings)) {
  keep <- keep & (is.na(ratings$annotator_excluded) | ratings$annotator_excluded == "")
}
ratings <- ratings[keep, ]
alpha <- report$settings$alpha
scale <- seq(report$settings$scale_min, report$settings$scale_max)
span <- max(scale) - min(scale)

# Krippendorff's alpha by the coincidence matrix (Krippendorff, K. (2011). Computing
# Krippendorff's alpha-reliability. Annenberg School for Communication, University of
# Pennsylvania): o_ck sums, over units with m_u >= 2 values, the pairs (c, k) / (m_u - 1);
# alpha = 1 - (n - 1) sum(o * delta2) / sum(n_c n_k delta2). NA when undefined.
kalpha <- function(unit, value, level, domain) {
  counts <- unclass(table(factor(unit), factor(value, levels = domain)))
  counts <- counts[rowSums(counts) >= 2, , drop = FALSE]
  if (nrow(counts) == 0) return(NA)
  w <- counts / (rowSums(counts) - 1)
  o <- crossprod(counts, w) - diag(colSums(w), length(domain))
  nc <- colSums(o); v <- seq_along(domain); cum <- c(0, cumsum(nc))
  delta2 <- switch(level,
    nominal = outer(v, v, "!=") * 1,
    interval = outer(domain, domain, "-")^2,
    ordinal = outer(v, v, function(c, k) {  # sum of n_g from c to k, less half of the ends
      (cum[pmax(c, k) + 1] - cum[pmin(c, k)] - (nc[c] + nc[k]) / 2)^2
    }))
  expected <- sum(outer(nc, nc) * delta2)
  if (expected == 0) return(NA)
  1 - (sum(nc) - 1) * sum(o * delta2) / expected
}
asked <- report$questionnaire$questions  # NULL: the benchmark's four dimensions
diverge <- if (is.null(asked)) "rubric_alignment" else asked$key[asked$role == "diverge"]
tie <- if (is.null(asked)) setdiff(names(report$dimensions), diverge) else asked$key[asked$role == "tie"]
verdicts <- c()
for (dim in names(report$dimensions)) {
  r <- ratings[ratings$dimension == dim, ]
  cell <- aggregate(score ~ pair_id + annotator + response, data = r, FUN = mean)
  wide <- reshape(cell, idvar = c("pair_id", "annotator"), timevar = "response", direction = "wide")
  wide <- wide[!is.na(wide$score.chosen) & !is.na(wide$score.rejected), ]
  wide$d <- wide$score.chosen - wide$score.rejected
  m <- suppressMessages(lmer(d ~ 1 + (1 | pair_id) + (1 | annotator), data = wide, REML = TRUE))
  co <- summary(m)$coefficients
  est <- co[1, "Estimate"]; se <- co[1, "Std. Error"]; df <- co[1, "df"]
  if (isSingular(m)) {  # a variance at 0: the report takes Kenward-Roger's SE and df
    if (requireNamespace("pbkrtest", quietly = TRUE)) {
      kr <- contest(m, matrix(1, 1, 1), joint = FALSE, ddf = "Kenward-Roger")
      se <- kr$`Std. Error`; df <- kr$df
    } else message(dim, ": singular fit; install pbkrtest for the report's Kenward-Roger df")
  }
  margin <- report$dimensions[[dim]]$margin; sesoi <- report$dimensions[[dim]]$sesoi
  tost <- max(pt((est + margin) / se, df, lower.tail = FALSE), pt((est - margin) / se, df))
  sup <- pt((est - sesoi) / se, df, lower.tail = FALSE)
  ci <- est + c(-1, 1) * qt(0.975, df) * se
  order <- if (dim %in% diverge) c("diverges", "tie") else c("tie", "diverges")
  passed <- c(tie = tost < alpha, diverges = sup < alpha)
  verdict <- if (passed[order[1]]) order[1] else if (passed[order[2]]) order[2] else "inconclusive"
  if (length(unique(wide$pair_id)) < report$settings$min_pairs) verdict <- "insufficient_data"
  verdicts[dim] <- verdict
  say(dim, sapply(c(est, ci), printed, "estimate"), printed(df, "df"), printed(tost, "p"),
    printed(sup, "p"), verdict)
  rated <- paste(r$pair_id, r$response)
  say(paste0("alpha:", dim), sapply(c(
    kalpha(rated, r$score, "ordinal", scale), kalpha(rated, r$score, "interval", scale),
    kalpha(wide$pair_id, wide$d, "interval", seq(-span, span))), printed, "alpha"))
  if (dim == diverge[1]) {  # the target: which response the annotator scored higher
    say("alpha:preference", printed(kalpha(wide$pair_id, sign(wide$d), "nominal", -1:1),
      "alpha"))
  }
}
say("validated", length(c(tie, diverge)) > 0 && all(verdicts[tie] == "tie") &&
  all(verdicts[diverge] == "diverges"))
