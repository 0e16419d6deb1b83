"""The experiments' data: the synthetic dataset, MovieLens 1M, and an invented stand-in for it.

Chandak, Hu & Hegde (2023), Sec. 5:

``chandak-synthetic`` (Sec. 5.1, Table 2)
    seven vectors in R^3 from Neel and Neudauer (2009), a linear matroid of rank 3, independent
    Bernoulli weights with the table's means; n = 10,000, eps = 2. e_7 = 0 is a loop, e_6 = 2 e_1
    is parallel to e_1; A* = (e_1, e_2, e_3) and f(A*, w_bar) = 2.15.
``chandak-movielens`` (Sec. 5.2)
    MovieLens 1M (Harper and Konstan 2015), read from a directory the user supplies (its licence
    forbids redistribution: nothing is shipped or downloaded). The 100 movies with the most
    ratings (ties by movie id, docs/errata.md#chh-movies) are the base arms; movie e is its multi-hot genre vector
    over the 18 genres (the paper's "one-hot", docs/errata.md#chh-movies) and independence is exact linear
    independence over the rationals (rank 17 expected; a warning otherwise). Each round one user
    is drawn uniformly with replacement and w_t(e) = 1 if that user rated e, so the weights of a
    round are dependent (docs/errata.md#chh-independence); w_bar(e) = (ratings of e) / (number of users). n = 20,000,
    eps = 2 (eps0 = 2/17).
``chandak-movielens-standin`` (**invented**: MovieLens 1M is not shipped)
    a synthetic stand-in with the movie experiment's shape so that it runs without the data: 100
    random multi-hot genre vectors over 18 genres with one genre unused (rank 17, checked), and
    a 6040 x 100 binary user-by-movie matrix whose column means fall from about 0.57 to about
    0.2, rows sampled uniformly (which keeps the within-round correlation). Its numbers are not
    MovieLens's and must not be reported as such.
"""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from ...errors import DPBanditsError, check_positive_int
from ..environments import Bernoulli
from .environment import MatroidEnvironment, RowSampler
from .matroids import Linear

__all__ = [
    "SYNTHETIC_VECTORS", "SYNTHETIC_MEANS", "ML1M_GENRES", "MovieLensData",
    "synthetic_matroid", "chandak_synthetic", "load_movielens", "chandak_movielens",
    "movielens_standin", "MATROID_SETTINGS", "matroid_setting", "DATA_HELP",
]

SYNTHETIC_VECTORS = ((1, 0, 0), (0, 1, 0), (0, 0, 1), (1, 0, 1), (0, 1, 1), (2, 0, 0), (0, 0, 0))
"""Table 2's base arms e_1..e_7 (Neel and Neudauer 2009), in table order."""

SYNTHETIC_MEANS = (0.80, 0.75, 0.60, 0.20, 0.30, 0.40, 0.70)
"""Table 2's mean weights w_bar(e_1..e_7)."""

ML1M_GENRES = ("Action", "Adventure", "Animation", "Children's", "Comedy", "Crime", "Documentary",
               "Drama", "Fantasy", "Film-Noir", "Horror", "Musical", "Mystery", "Romance", "Sci-Fi",
               "Thriller", "War", "Western")
"""The 18 genres of MovieLens 1M, in the order of its README; the columns of the genre vectors."""

DATA_HELP = ("download MovieLens 1M (ml-1m.zip) from GroupLens yourself, unpack it, and pass the "
              "directory holding ratings.dat and movies.dat; dpbandits neither ships nor downloads it")


def synthetic_matroid() -> Linear:
    """The linear matroid of Table 2's seven vectors (rank 3)."""
    return Linear(SYNTHETIC_VECTORS)


def chandak_synthetic() -> MatroidEnvironment:
    """Sec. 5.1: Table 2's matroid with independent Bernoulli(w_bar(e)) weights."""
    return MatroidEnvironment(synthetic_matroid(), Bernoulli(np.array(SYNTHETIC_MEANS)))


@dataclass(frozen=True, eq=False)
class MovieLensData:
    """The movie experiment's inputs: base arms, genre vectors, and the user-by-movie matrix."""

    movie_ids: np.ndarray
    """(L,) movie ids, most rated first."""
    titles: tuple[str, ...]
    genres: np.ndarray
    """(L, 18) multi-hot genre vectors u_e (columns as :data:`ML1M_GENRES`)."""
    rated: np.ndarray
    """(users, L) 0/1: did user u rate movie e. w_bar is its column mean."""
    source: str

    @property
    def means(self) -> np.ndarray:
        """w_bar(e) = (number of users who rated e) / (number of users)."""
        return self.rated.mean(axis=0)

    def matroid(self) -> Linear:
        return Linear(self.genres)

    def environment(self) -> MatroidEnvironment:
        """Each round a uniformly random user; w_t(e) = 1 if that user rated e."""
        return MatroidEnvironment(self.matroid(), RowSampler(self.rated))


def _read_text(path: Path) -> str:
    if not path.is_file():
        raise DPBanditsError(f"MovieLens file {path.name} is missing from {str(path.parent)!r}: "
                             f"{DATA_HELP}")
    return path.read_bytes().decode("latin-1")


def _read_movies(path: Path) -> dict[int, tuple[str, np.ndarray]]:
    movies: dict[int, tuple[str, np.ndarray]] = {}
    column = {genre: j for j, genre in enumerate(ML1M_GENRES)}
    for number, line in enumerate(_read_text(path).splitlines(), start=1):
        if not line.strip():
            continue
        fields = line.split("::")
        where = f"{path.name} line {number}"
        if len(fields) != 3:
            raise DPBanditsError(f"{where} must read MovieID::Title::Genres, got {line!r}")
        try:
            movie = int(fields[0])
        except ValueError:
            raise DPBanditsError(f"{where}: the movie id must be an integer, got {fields[0]!r}") from None
        if movie in movies:
            raise DPBanditsError(f"{where}: movie id {movie} appears twice")
        vector = np.zeros(len(ML1M_GENRES), dtype=np.int64)
        for genre in fields[2].strip().split("|"):
            if genre not in column:
                raise DPBanditsError(f"{where}: unknown genre {genre!r}; the genres are {ML1M_GENRES}")
            vector[column[genre]] = 1
        movies[movie] = (fields[1], vector)
    if not movies:
        raise DPBanditsError(f"{path.name} lists no movies")
    return movies


def _read_ratings(path: Path) -> np.ndarray:
    """(ratings, 2) array of (user id, movie id)."""
    lines = [line for line in _read_text(path).splitlines() if line.strip()]
    if not lines:
        raise DPBanditsError(f"{path.name} holds no ratings")
    tokens = "\n".join(lines).replace("::", " ").split()
    values = None
    if len(tokens) == 4 * len(lines):
        try:
            values = np.array(tokens, dtype=np.int64).reshape(len(lines), 4)
        except (ValueError, OverflowError):
            values = None
    if values is None:
        for number, line in enumerate(lines, start=1):
            fields = line.split("::")
            if len(fields) != 4 or not all(f.strip().lstrip("-").isdigit() for f in fields):
                raise DPBanditsError(f"{path.name} (non-empty) line {number} must read "
                                     f"UserID::MovieID::Rating::Timestamp with integers, got {line!r}")
        raise DPBanditsError(f"{path.name} could not be read as UserID::MovieID::Rating::Timestamp")
    if values[:, 2].min() < 1 or values[:, 2].max() > 5:
        raise DPBanditsError(f"{path.name}: ratings must be integers 1..5")
    return values[:, :2]


def load_movielens(path: str | Path, *, n_movies: int = 100,
                   expected_rank: int | None = 17) -> MovieLensData:
    """Read MovieLens 1M from the directory ``path`` (``ratings.dat`` and ``movies.dat``).

    Keeps the ``n_movies`` movies with the most ratings (ties by ascending movie id). Raises
    :class:`DPBanditsError` when the directory or a file is missing or a line is malformed; warns
    when the genre vectors' rank differs from ``expected_rank`` (17 in the paper).
    """
    n_movies = check_positive_int(n_movies, "n_movies", minimum=2)
    directory = Path(path)
    if not directory.is_dir():
        raise DPBanditsError(f"path {str(path)!r} is not a directory: {DATA_HELP}")
    movies = _read_movies(directory / "movies.dat")
    ratings = _read_ratings(directory / "ratings.dat")
    # One rating per (user, movie), sorted by user then movie; taken row-wise, so any int64 ids
    # (negative or large ones included) stay as they were read.
    pairs = np.unique(ratings, axis=0).reshape(-1, 2)
    users, user_index = np.unique(pairs[:, 0], return_inverse=True)
    rated_movies, counts = np.unique(pairs[:, 1], return_counts=True)
    unknown = np.setdiff1d(rated_movies, np.fromiter(movies, dtype=np.int64))
    if unknown.size:
        raise DPBanditsError(f"ratings.dat rates movie id {int(unknown[0])}, which movies.dat does not list")
    if rated_movies.size < n_movies:
        raise DPBanditsError(f"n_movies = {n_movies} but only {rated_movies.size} movies have ratings")
    top = rated_movies[np.lexsort((rated_movies, -counts))[:n_movies]]
    rated = np.zeros((users.size, n_movies), dtype=np.int8)
    keep = np.isin(pairs[:, 1], top)
    sorter = np.argsort(top)
    columns = sorter[np.searchsorted(top, pairs[keep, 1], sorter=sorter)]
    rated[user_index.ravel()[keep], columns] = 1
    data = MovieLensData(
        movie_ids=top.astype(np.int64),
        titles=tuple(movies[int(m)][0] for m in top),
        genres=np.stack([movies[int(m)][1] for m in top]),
        rated=rated,
        source=f"MovieLens 1M: top {n_movies} of {rated_movies.size} rated movies, {users.size} users",
    )
    if expected_rank is not None:
        rank = data.matroid().rank
        if rank != expected_rank:
            warnings.warn(f"the genre vectors of the top {n_movies} movies have rank {rank}, not "
                          f"{expected_rank} as in the paper", stacklevel=2)
    return data


def chandak_movielens(path: str | Path) -> MatroidEnvironment:
    """Sec. 5.2's environment from MovieLens 1M in the directory ``path``."""
    return load_movielens(path).environment()


def movielens_standin(seed: int = 0, *, n_users: int = 6040, n_movies: int = 100) -> MovieLensData:
    """An **invented** stand-in for the movie experiment (MovieLens 1M is not shipped).

    Genre vectors: each movie gets 1 to 4 distinct genres drawn uniformly from the 17 genres
    other than Documentary (so the rank is at most 17; redrawn until it is 17). Ratings: user u
    has an activity a_u ~ Uniform(0.5, 1.5) and rates movie e with probability
    min(1, a_u m_e), m_e falling linearly from 0.568 to 0.2 (about the range of Table 3); rows
    are dependent through a_u. Deterministic given ``seed``.
    """
    seed = check_positive_int(seed, "seed", minimum=0)
    n_users = check_positive_int(n_users, "n_users")
    n_movies = check_positive_int(n_movies, "n_movies", minimum=17)
    rng = np.random.default_rng(seed)
    used = [j for j, genre in enumerate(ML1M_GENRES) if genre != "Documentary"]
    while True:
        genres = np.zeros((n_movies, len(ML1M_GENRES)), dtype=np.int64)
        for e in range(n_movies):
            genres[e, rng.choice(used, size=1 + rng.binomial(3, 0.4), replace=False)] = 1
        if Linear(genres).rank == len(used):
            break
    target = np.linspace(0.568, 0.2, n_movies)
    activity = rng.uniform(0.5, 1.5, size=n_users)
    rated = (rng.random((n_users, n_movies)) < np.minimum(1.0, activity[:, None] * target)).astype(np.int8)
    return MovieLensData(
        movie_ids=np.arange(1, n_movies + 1),
        titles=tuple(f"stand-in movie {e + 1}" for e in range(n_movies)),
        genres=genres,
        rated=rated,
        source=f"invented stand-in for MovieLens 1M (MovieLens 1M is not shipped), seed {seed}",
    )


MATROID_SETTINGS: dict[str, str] = {
    "chandak-synthetic":
        "Chandak, Hu & Hegde (2023), Sec. 5.1, Table 2: linear matroid of 7 vectors in R^3 "
        "(rank 3, one loop, one parallel pair), independent Bernoulli weights; n = 10,000, "
        "eps = 2; f(A*) = 2.15",
    "chandak-movielens":
        "Chandak, Hu & Hegde (2023), Sec. 5.2: MovieLens 1M, top 100 movies by ratings, "
        "multi-hot genre vectors (rank 17), a uniformly random user per round; n = 20,000, "
        "eps = 2. Needs path= to a directory with ratings.dat and movies.dat (not shipped)",
    "chandak-movielens-standin":
        "INVENTED stand-in for chandak-movielens (MovieLens 1M is not shipped): 100 random multi-hot "
        "genre vectors (rank 17), 6040 synthetic users, means from 0.57 to 0.2; not MovieLens "
        "data. Option seed= (default 0)",
}
"""Named matroid settings: name -> description."""


def matroid_setting(name: str, **options) -> MatroidEnvironment:
    """The environment of a named matroid setting (see :data:`MATROID_SETTINGS`)."""
    allowed = {"chandak-synthetic": set(), "chandak-movielens": {"path"},
               "chandak-movielens-standin": {"seed"}}
    if name not in allowed:
        raise DPBanditsError(f"unknown matroid setting {name!r}; known settings: "
                             f"{', '.join(sorted(MATROID_SETTINGS))}")
    unknown = sorted(set(options) - allowed[name])
    if unknown:
        raise DPBanditsError(f"unknown option(s) {unknown} for {name}; it accepts "
                             f"{sorted(allowed[name]) or 'none'}")
    if name == "chandak-synthetic":
        return chandak_synthetic()
    if name == "chandak-movielens":
        if "path" not in options:
            raise DPBanditsError(f"chandak-movielens needs path=: {DATA_HELP}")
        return chandak_movielens(options["path"])
    return movielens_standin(options.get("seed", 0)).environment()
