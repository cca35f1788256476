package main

import (
	"encoding/json"
	"io"
	"net/http"
	"strings"
)

// The HTTP+JSON binding, under /a2a/rest.

func (s *server) restList(w http.ResponseWriter, r *http.Request) {
	s.rest(w, r, func(who string) (any, *apiError) { return s.listTasks(who, querySource(r.URL.Query())) })
}

func (s *server) restGet(w http.ResponseWriter, r *http.Request) {
	s.rest(w, r, func(who string) (any, *apiError) {
		return s.getTask(who, r.PathValue("id"), querySource(r.URL.Query()))
	})
}

func (s *server) restCancel(w http.ResponseWriter, r *http.Request) {
	id, ok := strings.CutSuffix(r.PathValue("idop"), ":cancel")
	if !ok {
		writeREST(w, errNotFoundPath(r.URL.Path))
		return
	}
	s.rest(w, r, func(who string) (any, *apiError) { return s.cancelTask(who, id) })
}

func (s *server) restSend(w http.ResponseWriter, r *http.Request) {
	s.rest(w, r, func(who string) (any, *apiError) {
		var body jsonSource
		b, _ := io.ReadAll(io.LimitReader(r.Body, 4<<20))
		if json.Unmarshal(b, &body) != nil || body == nil {
			return nil, invalid("body", "the body must be a SendMessageRequest object")
		}
		return s.sendMessage(who, body)
	})
}

func (s *server) rest(w http.ResponseWriter, r *http.Request, op func(who string) (any, *apiError)) {
	who, err := s.caller(r)
	if err != nil {
		writeREST(w, err)
		return
	}
	res, err := op(who)
	if err != nil {
		writeREST(w, err)
		return
	}
	w.Header().Set("Content-Type", "application/a2a+json")
	json.NewEncoder(w).Encode(res)
}
