package a2aclient

import (
	"regexp"
	"strings"
	"unicode"
)

// This file decides whether a text names a request field: an error message
// "SHOULD specify which parameter(s) failed validation and why" (A2A
// §3.3.2), and servers say it in many ways. "pageSize", "page_size",
// "PageSize" (a Go struct field), "params.pageSize" and "page size must be
// between 1 and 100" all name pageSize; "maxPageSize", "page" or "size"
// alone do not.

// Names reports whether text names the request field field (a camelCase
// JSON name such as "pageSize"): the field's words, in order, written
// camelCase, snake_case, kebab-case or as separate words, in any case, and
// standing on their own (not inside a longer identifier such as
// "maxPageSize" or "pageSizes").
func Names(text, field string) bool {
	re := fieldPattern(field)
	return re != nil && re.MatchString(text)
}

// fieldPattern compiles the pattern of field's words (nil for a field with
// no words). A word boundary is anything but a letter, a digit or "_", so
// a dotted path (params.pageSize) or quotes still count, while a longer
// snake_case name (max_page_size) does not.
func fieldPattern(field string) *regexp.Regexp {
	words := fieldWords(field)
	if len(words) == 0 {
		return nil
	}
	for i, w := range words {
		words[i] = regexp.QuoteMeta(w)
	}
	const edge = `[^\p{L}\p{N}_]`
	return regexp.MustCompile(`(?i)(?:^|` + edge + `)` + strings.Join(words, `[ _-]?`) + `(?:$|` + edge + `)`)
}

// fieldWords splits a field name into its words: at "_", "-", "." and
// spaces, and at camelCase humps ("statusTimestampAfter" is status,
// timestamp, after; "taskID" is task, id; "HTTPStatus" is http, status).
func fieldWords(field string) []string {
	var words []string
	var cur []rune
	flush := func() {
		if len(cur) > 0 {
			words = append(words, strings.ToLower(string(cur)))
			cur = cur[:0]
		}
	}
	rs := []rune(field)
	for i, r := range rs {
		switch {
		case !unicode.IsLetter(r) && !unicode.IsDigit(r):
			flush()
			continue
		case unicode.IsUpper(r) && i > 0 && len(cur) > 0:
			prev := rs[i-1]
			nextLower := i+1 < len(rs) && unicode.IsLower(rs[i+1])
			if unicode.IsLower(prev) || unicode.IsDigit(prev) || (unicode.IsUpper(prev) && nextLower) {
				flush()
			}
		}
		cur = append(cur, r)
	}
	flush()
	return words
}
