# Recompute the study verdict of report.json from ratings.parquet with lme4/lmerTest.
# Per dimension: each annotator's chosen - rejected score per pair, a linear mixed model with
# crossed random pair and annotator effects (REML), Satterthwaite df (lmerTest); TOST at the
# dimension's margin and the one-sided test of a difference larger than the smallest effect of
# interest (both read from report.json's settings). Needs the arrow package to read the
# Parquet file (install.packages("arrow")), or a ratings.csv beside it.
# Run: Rscript reproduce.R [folder]
suppressMessages({library(lmerTest); library(jsonlite)})
args <- commandArgs(trailingOnly = TRUE)
folder <- if (length(args) > 0) args[1] else "."
report <- fromJSON(file.path(folder, "report.json"))
csv <- file.path(folder, "ratings.csv")
ratings <- if (requireNamespace("arrow", quietly = TRUE)) {
  as.data.frame(arrow::read_parquet(file.path(folder, "ratings.parquet")))
} else read.csv(csv, stringsAsFactors = FALSE)
keep <- rep(TRUE, nrow(ratings))
if ("excluded" %in% names(ratings)) keep <- keep & !as.logical(ratings$excluded)
if ("purpose" %in% names(ratings)) keep <- keep & (is.na(ratings$purpose) | ratings$purpose %in% c("", "rating"))
if ("status" %in% names(ratings)) keep <- keep & (is.na(ratings$status) | ratings$status != "skipped")
if ("annotator_excluded" %in% names(ratings)) {
  keep <- keep & (is.na(ratings$annotator_excluded) | ratings$annotator_excluded == "")
}
ratings <- ratings[keep, ]
alpha <- report$settings$alpha
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
  margin <- report$dimensions[[dim]]$margin; sesoi <- report$dimensions[[dim]]$sesoi
  tost <- max(pt((est + margin) / se, df, lower.tail = FALSE), pt((est - margin) / se, df))
  sup <- pt((est - sesoi) / se, df, lower.tail = FALSE)
  ci <- est + c(-1, 1) * qt(0.975, df) * se
  order <- if (dim == "rubric_alignment") c("diverges", "tie") else c("tie", "diverges")
  passed <- c(tie = tost < alpha, diverges = sup < alpha)
  verdict <- if (passed[order[1]]) order[1] else if (passed[order[2]]) order[2] else "inconclusive"
  if (length(unique(wide$pair_id)) < report$settings$min_pairs) verdict <- "insufficient_data"
  verdicts[dim] <- verdict
  cat(dim, format(c(est, ci, df, tost, sup), digits = 12), verdict, "\n")
}
general <- setdiff(names(verdicts), "rubric_alignment")
cat("validated", all(verdicts[general] == "tie") && verdicts["rubric_alignment"] == "diverges", "\n")
