"""The sparse side of retrieval: Korean/English tokenization and the BM25 index."""

import math
import random
from concurrent.futures import ThreadPoolExecutor

import pytest

from memoir_desktop.core.lexical import BM25Index, tokenize, tokenize_many, warm_up
from memoir_desktop.core.lexical import tokens as lexical


@pytest.fixture(scope="module", autouse=True)
def _korean_analyser_loaded():
    warm_up()


def ids(results):
    return [doc_id for doc_id, _ in results]


def scores_by_id(results):
    return dict(results)


def assert_same_results(got, want):
    assert ids(got) == ids(want)
    assert [s for _, s in got] == pytest.approx([s for _, s in want])


# --------------------------------------------------------------------------- Korean


def test_particles_and_endings_do_not_change_the_content_tokens():
    assert {"커피", "마시"} <= set(tokenize("커피를 마셨다"))
    assert {"커피", "마시"} <= set(tokenize("커피 마시는 중"))
    assert "커피" in tokenize("커피는")
    assert tokenize("회사에서") == tokenize("회사는") == tokenize("회사를") == ["회사"]


def test_function_words_are_not_tokens():
    tokens = tokenize("나는 학교에서 친구와 집으로 왔다.")
    assert {"학교", "친구", "집"} <= set(tokens)
    for function_word in ("는", "에서", "와", "으로", "다", ".", "나"):
        assert function_word not in tokens


def test_adjective_stems_and_roots_are_kept():
    assert "조용" in tokenize("조용한 카페") and "조용" in tokenize("카페가 조용했다")
    assert "예쁘" in tokenize("꽃이 예뻤다")


def test_coffee_question_finds_the_coffee_entry_first():
    index = BM25Index()
    index.add("coffee", "요즘 디카페인 커피를 마시고 있다")
    index.add("work", "회사에서 회의를 세 시간이나 했다")
    index.add("book", "카페에서 책을 읽었다")
    results = index.search("커피 마셨어?")
    assert ids(results)[0] == "coffee"
    assert "work" not in ids(results)


def test_particle_on_the_query_still_matches():
    index = BM25Index()
    index.add("office", "회사 동료들과 점심을 먹었다")
    index.add("home", "집에서 하루 종일 쉬었다")
    assert ids(index.search("회사에서")) == ["office"]


def test_compound_nouns_match_with_or_without_spaces():
    assert tokenize("디카페인커피") == tokenize("디카페인 커피")
    index = BM25Index()
    index.add("stew", "점심에 김치찌개를 먹었는데 너무 짰다")
    index.add("kimchi", "김장 김치를 담갔다")
    index.add("park", "퇴근길에 한강공원에서 자전거를 탔다")
    assert ids(index.search("김치 찌개"))[0] == "stew"
    assert ids(index.search("찌개")) == ["stew"]
    assert ids(index.search("한강 공원")) == ["park"]
    # the whole compound still weighs more than one of its parts
    index.add("spaced", "김치 찌개 끓이는 법")
    assert ids(index.search("김치찌개"))[0] == "stew"


def test_a_word_that_is_also_a_wikipedia_title_is_still_a_word():
    """Kiwi's multi-word dictionary read 시티팝 as the title "시티 팝" and 족저근막염 as "족저 근막염",
    and those readings (with a space inside) left no token at all: a line about them could not be
    found by its own word. The analyser now loads without that dictionary."""
    assert "족저근막염" in tokenize("족저근막염 때문에 병원에 다닌다")
    index = BM25Index()
    index.add("lp", "시티팝 LP를 모은다")
    index.add("foot", "족저근막염 진단을 받아 재활의학과에 다닌다")
    index.add("writer", "좋아하는 작가는 SF를 쓰는 테드 창이다")
    index.add("other", "퇴근하고 집에서 쉬었다")
    assert ids(index.search("시티팝")) == ["lp"]
    assert ids(index.search("족저근막염"))[0] == "foot"
    assert ids(index.search("테드 창"))[0] == "writer"


def test_hashtags_keep_their_korean_word():
    assert "여행" in tokenize("#여행 #제주도")


# --------------------------------------------------------------------------- English and mixed


def test_english_inflections_share_a_token():
    assert len({tokenize(w)[0] for w in ("hiking", "hike", "hikes", "hiked")}) == 1
    assert len({tokenize(w)[0] for w in ("running", "runs", "ran", "run")}) == 1
    assert len({tokenize(w)[0] for w in ("studies", "studied", "study", "studying")}) == 1
    assert len({tokenize(w)[0] for w in ("boxes", "box")}) == 1
    assert tokenize("Walked") == tokenize("walking") == tokenize("WALKS")


def test_english_stopwords_and_single_letters_are_dropped():
    assert tokenize("I was at the park and it was a good day") == tokenize("park good day")
    assert tokenize("the and of a") == []


def test_english_stemming_stays_inflectional():
    assert tokenize("university") != tokenize("universe")
    assert tokenize("happiness") != tokenize("happy")
    assert tokenize("news") != tokenize("new")
    assert tokenize("sky") != tokenize("skiing")


def test_other_scripts_are_lower_cased_words_or_cjk_bigrams():
    assert tokenize("Привет МИР") == tokenize("привет мир") == ["привет", "мир"]
    assert set(tokenize("東京")) <= set(tokenize("東京タワーに行った"))
    assert tokenize("ＡＢＣ ２０２４") == tokenize("abc 2024")  # full-width forms


def test_hike_finds_hiking():
    index = BM25Index()
    index.add("trail", "We went hiking on Bukhansan last Saturday")
    index.add("movie", "Watched a movie at home")
    assert ids(index.search("hike")) == ["trail"]


def test_mixed_korean_and_english():
    tokens = tokenize("오늘 hiking 갔는데 running shoes를 3개 샀다")
    assert tokenize("hiking")[0] in tokens and tokenize("shoe")[0] in tokens
    assert {"오늘", "3"} <= set(tokens)
    assert "를" not in tokens and "shoes를" not in tokens
    index = BM25Index()
    index.add("mixed", "주말에 친구랑 hiking 다녀왔다")
    index.add("korean", "주말에 집에서 쉬었다")
    index.add("english", "Cooked dinner with friends")
    assert ids(index.search("hike"))[0] == "mixed"
    assert ids(index.search("hiking 주말"))[0] == "mixed"


def test_an_english_word_gives_the_same_token_alone_and_inside_korean():
    for word in ("covid19", "iPhone", "meetings", "café"):
        assert tokenize(word)[0] in tokenize(f"{word}에 대해 이야기했다")


def test_tokenize_many_matches_tokenize():
    texts = ["커피를 마셨다", "", "hiking with 친구", "😀", "김치찌개 " * 300]
    assert tokenize_many(texts) == [tokenize(t) for t in texts]


# --------------------------------------------------------------------------- bad input


@pytest.mark.parametrize(
    "text",
    [
        "",
        "   \n\t ",
        "\x00",
        "커\x00피를 마셨다\x00",
        "😀🎉👍🏽",
        "\ud800 lone surrogate \udfff",
        "a" * 100_000,
        "가" * 50_000,
        "".join(chr(0xAC00 + (i * 7919) % 11172) for i in range(30_000)),
        "https://example.com/" + "x" * 5000,
        "\u200b\u200d\ufeff",
    ],
    ids=["empty", "whitespace", "nul", "nul-in-korean", "emoji", "surrogates", "long-latin-word",
         "long-repeated-hangul", "long-random-hangul", "long-url", "zero-width"],
)  # fmt: skip
def test_bad_input_never_raises(text):
    tokens = tokenize(text)
    assert isinstance(tokens, list) and all(isinstance(t, str) and t for t in tokens)
    index = BM25Index()
    index.add("x", text)
    index.search(text)
    assert len(index) == 1


def test_nul_separates_like_a_space_and_emoji_only_gives_nothing():
    assert tokenize("커피\x00마셨다\x00") == tokenize("커피 마셨다") == ["커피", "마시"]
    assert tokenize("coffee\x00hiking") == tokenize("coffee hiking")
    assert tokenize("😀🎉") == []
    assert tokenize("   ") == []


def test_one_megabyte_text():
    text = ("오늘 회사에서 회의를 했고 커피를 마셨다. Then I went hiking. " * 30_000)[:1_000_000]
    tokens = tokenize(text)
    assert "커피" in tokens and "hike" in tokens
    index = BM25Index()
    index.add("big", text)
    index.add("small", "커피")
    assert set(ids(index.search("커피"))) == {"big", "small"}


# --------------------------------------------------------------------------- BM25


def bm25_reference(corpus: dict[str, list[str]], query: list[str], k1=1.2, b=0.75) -> dict[str, float]:
    """Okapi BM25 straight from the formula, over pre-tokenized documents."""
    n = len(corpus)
    avg = sum(len(toks) for toks in corpus.values()) / n
    scores = {}
    for doc_id, toks in corpus.items():
        s = 0.0
        for term in dict.fromkeys(query):
            f = toks.count(term)
            if not f:
                continue
            df = sum(term in other for other in corpus.values())
            idf = math.log(1 + (n - df + 0.5) / (df + 0.5))
            s += idf * f * (k1 + 1) / (f + k1 * (1 - b + b * len(toks) / avg))
        if s > 0:
            scores[doc_id] = s
    return scores


def test_scores_follow_the_okapi_formula():
    docs = {
        "a": "apple banana apple cherry",
        "b": "banana banana durian",
        "c": "cherry elderberry fig grape apple",
        "d": "grape",
    }
    for k1, b in ((1.2, 0.75), (2.0, 0.0), (0.5, 1.0)):
        index = BM25Index(k1=k1, b=b)
        for doc_id, text in docs.items():
            index.add(doc_id, text)
        corpus = {doc_id: tokenize(text) for doc_id, text in docs.items()}
        for query in ("apple", "banana cherry", "grape apple durian", "fig"):
            expected = bm25_reference(corpus, tokenize(query), k1, b)
            got = scores_by_id(index.search(query, limit=10))
            assert got == pytest.approx(expected)


def test_rarer_terms_weigh_more():
    index = BM25Index()
    index.add("rare", "기타 레슨")  # guitar lesson: "레슨" is in one document
    index.add("common", "기타 친구")
    for i in range(20):
        index.add(f"filler{i}", f"친구 만남 {i}")
    results = scores_by_id(index.search("레슨 친구"))
    assert results["rare"] > results["common"]
    assert ids(index.search("레슨 친구"))[0] == "rare"


def test_results_are_best_first_positive_and_limited():
    index = BM25Index()
    for i in range(30):
        index.add(str(i), "커피 " * (i % 5 + 1) + "하루 " * (i % 7))
    results = index.search("커피", limit=7)
    assert len(results) == 7
    scores = [s for _, s in results]
    assert scores == sorted(scores, reverse=True) and all(s > 0 for s in scores)
    assert index.search("없는단어xyz") == []
    assert index.search("") == []
    assert BM25Index().search("커피") == []


def test_remove_really_removes():
    index = BM25Index()
    texts = {"a": "커피를 마셨다", "b": "커피와 케이크", "c": "녹차를 마셨다", "d": "hiking with coffee"}
    for doc_id, text in texts.items():
        index.add(doc_id, text)
    index.remove("a")
    assert len(index) == 3 and "a" not in ids(index.search("커피 마셨다"))
    index.remove("a")  # absent: no error
    index.remove("never-there")
    fresh = BM25Index()
    for doc_id in ("b", "c", "d"):
        fresh.add(doc_id, texts[doc_id])
    for query in ("커피", "마셨다", "커피 마시 녹차", "coffee hike"):
        assert scores_by_id(index.search(query)) == pytest.approx(scores_by_id(fresh.search(query)))


def test_add_with_the_same_id_replaces():
    index = BM25Index()
    index.add("m1", "강아지와 산책했다")
    index.add("m2", "고양이 밥을 줬다")
    index.add("m1", "수영장에서 수영했다")
    assert len(index) == 2
    assert index.search("강아지 산책") == []
    assert ids(index.search("수영")) == ["m1"]
    fresh = BM25Index()
    fresh.add("m1", "수영장에서 수영했다")
    fresh.add("m2", "고양이 밥을 줬다")
    assert scores_by_id(index.search("수영 고양이")) == pytest.approx(
        scores_by_id(fresh.search("수영 고양이"))
    )


def test_a_document_added_after_a_search_is_found_by_the_next_search():
    index = BM25Index()
    index.add("first", "커피 한 잔")
    assert ids(index.search("커피")) == ["first"]
    index.add("second", "커피 두 잔 커피")
    assert ids(index.search("커피")) == ["second", "first"]
    index.remove("second")
    index.add("third", "coffee")
    assert ids(index.search("커피 coffee")) == ["third", "first"]


WORDS = [
    "커피",
    "회사",
    "친구",
    "여행",
    "운동",
    "hiking",
    "coffee",
    "movie",
    "김치찌개",
    "산책",
    "고양이",
    "책",
]


def test_many_adds_and_removes_score_like_a_fresh_index():
    rng = random.Random(42)
    index, live = BM25Index(), {}
    for step in range(600):
        doc_id = f"d{rng.randrange(60)}"
        if rng.random() < 0.3:
            index.remove(doc_id)
            live.pop(doc_id, None)
        else:
            text = " ".join(rng.choices(WORDS, k=rng.randint(0, 8)))
            index.add(doc_id, text)
            live[doc_id] = text
        if step % 7 == 0:  # searching in between must not leave anything stale behind
            index.search(rng.choice(WORDS))
    fresh = BM25Index()
    fresh.add_many(live.items())
    assert len(index) == len(fresh) == len(live)
    for query in [*WORDS, "커피 회사 hiking", "여행 고양이 책 movie"]:
        # same order (ties broken the same way) and the same scores
        assert_same_results(index.search(query, limit=100), fresh.search(query, limit=100))


def test_add_many_equals_adding_one_by_one_and_later_duplicates_win():
    items = [("a", "커피를 마셨다"), ("b", "hiking in the rain"), ("a", "녹차를 마셨다"), ("c", "")]
    bulk = BM25Index()
    bulk.add_many(items)
    single = BM25Index()
    for doc_id, text in items:
        single.add(doc_id, text)
    assert len(bulk) == 3
    assert bulk.search("커피") == []
    for query in ("녹차 마셨다", "hike rain"):
        assert_same_results(bulk.search(query), single.search(query))


def test_explain_returns_the_matched_query_tokens():
    index = BM25Index()
    index.add("m", "요즘 디카페인 커피를 마시고 있다")
    assert index.explain("커피 마셨어? 녹차는?", "m") == ["커피", "마시"]
    assert index.explain("녹차", "m") == []
    assert index.explain("커피", "absent") == []
    index.add("e", "Went hiking with Jisoo")
    assert index.explain("hikes with jisoo", "e") == [tokenize("hikes")[0], "jisoo"]


# --------------------------------------------------------------------------- threads and fallback


def test_concurrent_tokenize_gives_the_same_tokens():
    texts = [f"{i}번째 날: 커피를 마시고 회사에 갔다, then went hiking" for i in range(64)]
    expected = [tokenize(t) for t in texts]
    with ThreadPoolExecutor(max_workers=8) as pool:
        assert list(pool.map(tokenize, texts)) == expected


def test_concurrent_adds_removes_and_searches_leave_a_consistent_index():
    index = BM25Index()

    def ops(worker):  # each writer owns its ids, so the final state is known
        for i in range(40):
            yield "add", f"{worker}-{i % 10}", f"커피 {i} 회사 hiking {worker}"
            if i % 3 == 0:
                yield "remove", f"{worker}-{(i + 5) % 10}", ""

    def write(worker):
        for op, doc_id, text in ops(worker):
            index.add(doc_id, text) if op == "add" else index.remove(doc_id)

    def read(_):
        for _ in range(40):
            for doc_id, score in index.search("커피 hiking"):
                assert score > 0 and isinstance(doc_id, str)

    jobs = [(write, w) for w in range(3)] + [(read, r) for r in range(3)]
    with ThreadPoolExecutor(max_workers=6) as pool:
        list(pool.map(lambda job: job[0](job[1]), jobs))

    final: dict[str, str] = {}
    for worker in range(3):
        for op, doc_id, text in ops(worker):
            final.update({doc_id: text}) if op == "add" else final.pop(doc_id, None)
    fresh = BM25Index()
    fresh.add_many(final.items())
    assert len(index) == len(final)
    assert_same_results(index.search("커피 hiking 1", limit=50), fresh.search("커피 hiking 1", limit=50))


def test_korean_search_still_works_when_the_analyser_cannot_load(monkeypatch):
    monkeypatch.setattr(lexical, "_kiwi", None)
    monkeypatch.setattr(lexical, "_kiwi_failed", True)
    index = BM25Index()
    index.add("stew", "점심에 김치찌개를 먹었다")
    index.add("park", "한강공원 산책")
    index.add("en", "hiking trip")
    assert ids(index.search("김치찌개"))[0] == "stew"
    assert ids(index.search("hike")) == ["en"]
    assert tokenize("") == [] and tokenize("😀") == []


def test_explain_many_matches_explain_per_document():
    index = BM25Index()
    index.add_many([("a", "커피를 마셨다"), ("b", "녹차와 커피"), ("c", "hiking")])
    q = "커피 마셨어? 녹차는?"
    assert index.explain_many(q, ["a", "b", "c", "absent"]) == {d: index.explain(q, d) for d in ["a", "b", "c", "absent"]}
    assert index.explain_many(q, ["a"]) == {"a": ["커피", "마시"]}
