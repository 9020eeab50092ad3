from django.contrib import admin
from django.contrib.auth import views as auth_views
from django.http import HttpResponsePermanentRedirect
from django.templatetags.static import static
from django.urls import include, path

from atlas.sign_in import SignOut
from runs.views.home import home, nav_links


def favicon(request):
    """Browsers ask for /favicon.ico whatever icon a page links (headless, for a bookmark)."""
    return HttpResponsePermanentRedirect(static("atlas/favicon.svg"))


urlpatterns = [
    path("", home, name="home"),
    path("nav/", nav_links, name="nav-links"),
    path("favicon.ico", favicon),
    path("login/", auth_views.LoginView.as_view(redirect_authenticated_user=True), name="login"),
    path("logout/", SignOut.as_view(), name="logout"),
    path("admin/", admin.site.urls),
    path("", include("runs.urls")),
    path("reviews/", include("reviews.urls")),
]
